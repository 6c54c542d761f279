import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How serious a diagnostic is.
public enum Severity: String, Sendable, Hashable, Codable, Comparable {
    case note, warning, error

    private var rank: Int {
        switch self {
        case .note: 0
        case .warning: 1
        case .error: 2
        }
    }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// A recoverable problem with the input: a record skipped or repaired, a value coerced, a file warning.
/// `code` is a stable snake_case reason (`null_geometry`, `dbf_count_lies`, …) that is never reworded.
public struct Diagnostic: Sendable, Hashable, Codable {
    public var severity: Severity
    public var code: ReasonCode
    public var message: String
    public var file: String?
    public var record: Int?
    public var offset: Int?

    /// Creates a diagnostic.
    public init(
        _ severity: Severity, code: ReasonCode, _ message: String, file: String? = nil, record: Int? = nil,
        offset: Int? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.file = file
        self.record = record
        self.offset = offset
    }

    /// `file: record N: message`, the form printed on stderr.
    public var formatted: String {
        var s = ""
        if let file { s += "\(file): " }
        if let record { s += "record \(record): " } else if let offset { s += "byte \(offset): " }
        return s + message
    }
}

/// Collects diagnostics from any thread: counts per code, plus the first `sampleLimit` samples per code.
public final class DiagnosticSink: Sendable {
    private struct State {
        var counts: [ReasonCode: Int] = [:]
        var samples: [Diagnostic] = []
        var samplesPerCode: [ReasonCode: Int] = [:]
        /// What the threads inside `holding` reported, by thread.
        var held: [UInt: [Diagnostic]] = [:]
    }
    private let state = Mutex(State())
    private let names = Mutex(FileDisplayNames())
    /// How many samples are kept per code.
    public let sampleLimit: Int
    private let echo: (@Sendable (Diagnostic) -> Void)?

    /// Creates a sink; `echo` sees each diagnostic that is kept as a sample (e.g. to print it).
    public init(sampleLimit: Int = 20, echo: (@Sendable (Diagnostic) -> Void)? = nil) {
        self.sampleLimit = sampleLimit
        self.echo = echo
    }

    /// From now on, diagnostics name files as `names` says (see `FileDisplayNames.relabel`): set by the
    /// command that knows how the user named its inputs (a pipeline's paths, the path inside a zip).
    public func setFileNames(_ names: FileDisplayNames) {
        self.names.withLock { $0 = names }
    }

    /// The names diagnostics are shown with.
    public var fileNames: FileDisplayNames { names.withLock { $0 } }

    /// Records a diagnostic (its code is counted; the first `sampleLimit` per code are kept and echoed, with
    /// their files named as `setFileNames` says).
    public func report(_ diagnostic: Diagnostic) {
        let keep = state.withLock { s -> Bool in
            if !s.held.isEmpty, s.held[Self.thread] != nil {
                s.held[Self.thread]?.append(diagnostic)
                return false
            }
            s.counts[diagnostic.code, default: 0] += 1
            let n = s.samplesPerCode[diagnostic.code, default: 0]
            guard n < sampleLimit else { return false }
            s.samplesPerCode[diagnostic.code] = n + 1
            return true
        }
        guard keep else { return }
        let names = self.names.withLock { $0 }
        let d = names.relabel(diagnostic)
        state.withLock { $0.samples.append(d) }
        echo?(d)
    }

    /// Runs `body` with what this thread reports held back, neither counted nor kept, and returns it in order with
    /// `body`'s value: a reader running ahead on a thread of its own hands its diagnostics to the thread that
    /// `report`s them where the log's order (the same for any thread count) wants them. Not nested.
    public func holding<T>(_ body: () -> T) -> (value: T, held: [Diagnostic]) {
        let me = Self.thread
        state.withLock { $0.held[me] = [] }
        let value = body()
        let held = state.withLock { $0.held.removeValue(forKey: me) } ?? []
        return (value, held)
    }

    /// The calling thread's identity.
    private static var thread: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }

    /// Counts per code, sorted by code.
    public var counts: [(code: ReasonCode, count: Int)] {
        state.withLock { $0.counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
    }

    /// The count for one code.
    public func count(_ code: ReasonCode) -> Int { state.withLock { $0.counts[code] ?? 0 } }

    /// The kept samples in arrival order.
    public var samples: [Diagnostic] { state.withLock { $0.samples } }
}
