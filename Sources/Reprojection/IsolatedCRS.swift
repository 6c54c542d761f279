import Foundation
import KartpackCore
import KartpackJSON
import Synchronization

/// Resolves the CRS of an untrusted `.prj`, and every CRS text the user gave (`--source-crs`, a pipeline's
/// `"crs"`), in a short-lived child process with a time limit, so a text that crashes or hangs PROJ 9.1
/// (hostile-inputs.md §4 #40; `+nadgrids=` at a FIFO) rejects one file or option instead of taking the run down.
///
/// The child (`kartpack __resolve-crs [--override] [--file F]`) sanitizes the text (`WKTSanitizer` for `.prj`
/// files, `CRSOverrideSanitizer` for overrides), parses it and builds the transformations to WGS 84 and Web
/// Mercator — the calls known to crash, recurse or block — and prints the resulting `CRSInfo` as JSON. The parent
/// then rebuilds the CRS from that vetted definition. Without a helper executable (library use, unit tests) the
/// same sanitized path runs in-process.
public enum IsolatedCRS {
    private static let helper = Mutex<String?>(nil)
    private static let cache = Mutex<[String: Result<CRSInfo, ProjectionError>]>([:])
    /// CPU seconds one child may use (`RLIMIT_CPU`, set by the child itself): a text on which PROJ computes
    /// without end is stopped here, however busy the machine is.
    public static let cpuLimit = 5
    /// Wall-clock limit for one child: a text on which PROJ blocks (a grid name at a FIFO) uses no CPU and is
    /// stopped here. Generous, so that a child starved of CPU on a loaded machine (load 24 on 2 cores stretched a
    /// 0.3 s answer past the former 5 s limit and rejected a good `.prj`) still answers.
    public static let timeout = 60.0

    /// The executable that answers `__resolve-crs` (the `kartpack` binary sets itself at start).
    public static var helperExecutable: String? {
        get { helper.withLock { $0 } }
        set { helper.withLock { $0 = newValue } }
    }

    /// Like `CRSResolver.resolve`, with `.prj` text parsed in a child process of `helper` when there is one.
    /// Answers are cached per (helper, text): a run with many layers sharing one `.prj` starts one child.
    /// `wallLimit` is for tests of the time limit; runs keep `timeout`.
    public static func resolve(
        prjText: String?, override: String?, prjFile: String?, helper: String? = helperExecutable,
        wallLimit: Double = timeout
    ) throws(ProjectionError) -> CRSInfo {
        guard let exe = helper, override != nil || prjText != nil else {
            return try CRSResolver.resolve(prjText: prjText, override: override, prjFile: prjFile)
        }
        let request: Request = override.map { .override($0) } ?? .prj(prjText ?? "", file: prjFile)
        let key = exe + "\u{0}" + request.key
        if let cached = cache.withLock({ $0[key] }) { return try cached.mapError { $0.naming(prjFile) }.get() }
        let result = runChild(exe, request: request, wallLimit: wallLimit)
        // Running out of descriptors passes; it is not an answer about the text.
        if case .failure(.tooManyOpenFiles) = result { return try result.get() }
        cache.withLock { $0[key] = result }
        return try result.get()
    }

    /// What a child is asked to resolve.
    enum Request {
        case prj(String, file: String?)
        case override(String)

        var key: String {
            switch self {
            case .prj(let text, _): "prj\u{0}" + text
            case .override(let text): "option\u{0}" + text
            }
        }
        var text: String {
            switch self {
            case .prj(let t, _), .override(let t): t
            }
        }
        var arguments: [String] {
            switch self {
            case .prj(_, let file): file.map { ["--file", $0] } ?? []
            case .override: ["--override"]
            }
        }

        /// The in-process answer (when the helper cannot start).
        func resolveHere() throws(ProjectionError) -> CRSInfo {
            switch self {
            case .prj(let text, let file): try CRSResolver.resolve(prjText: text, override: nil, prjFile: file)
            case .override(let text): try CRSResolver.resolve(prjText: nil, override: text, prjFile: nil)
            }
        }

        /// What a failure to start the child names: the file or option and the step.
        var helperStep: String {
            switch self {
            case .prj(_, let file): "\(file ?? "the .prj"): cannot start the CRS helper for it"
            case .override(let text): "CRS \"\(text)\": cannot start the CRS helper for it"
            }
        }

        /// The error for a child that crashed, hung or said nothing.
        func failure(_ reason: String) -> ProjectionError {
            switch self {
            case .prj(_, let file): .hostilePrj(file: file, reason: reason + " on this .prj")
            case .override(let text): .badOverride(text: text, detail: reason + " on it")
            }
        }
    }

    /// What the child prints: `{"crs": {...}}`, or `{"error": "...", "failure": {...}}` where `failure` is the
    /// `ProjectionError` itself, so the parent keeps its code (`hostile_prj` vs `unparseable_prj`) and says its
    /// text once.
    struct Answer {
        var crs: CRSInfo?
        var error: String?
        var failure: ProjectionError?

        var json: JSONValue {
            guard let crs else {
                var members: [(String, JSONValue)] = [("error", .string(error ?? "unknown error"))]
                if let failure { members.append(("failure", failure.json)) }
                return .object(members)
            }
            return .object([
                (
                    "crs",
                    .object([
                        ("name", .string(crs.name)), ("epsg", crs.epsg.map { .int(Int64($0)) } ?? .null),
                        ("definition", .string(crs.definition)), ("origin", .string(crs.origin)),
                        ("isGeographic", .bool(crs.isGeographic)),
                        ("confidence", crs.confidence.map { .int(Int64($0)) } ?? .null),
                        ("identification", crs.identification.map { .string($0) } ?? .null),
                    ])
                )
            ])
        }

        /// Reads the child's text; nil when it is not an answer.
        init?(text: String) {
            guard let v = try? JSONParser.parse(text), v.objectMembers != nil else { return nil }
            error = v["error"]?.stringValue
            failure = v["failure"].flatMap(ProjectionError.init(json:))
            if let c = v["crs"], let name = c["name"]?.stringValue, let definition = c["definition"]?.stringValue,
                let origin = c["origin"]?.stringValue, case .bool(let geographic)? = c["isGeographic"]
            {
                crs = CRSInfo(
                    name: name, epsg: c["epsg"]?.intValue.flatMap { Int(exactly: $0) }, definition: definition,
                    origin: origin, isGeographic: geographic,
                    confidence: c["confidence"]?.intValue.flatMap { Int(exactly: $0) },
                    identification: c["identification"]?.stringValue)
            }
            guard crs != nil || error != nil else { return nil }
        }

        init() {}
    }

    private static func runChild(_ exe: String, request: Request, wallLimit: Double) -> Result<
        CRSInfo, ProjectionError
    > {
        let child = HelperChild(executable: exe, arguments: ["__resolve-crs"] + request.arguments)
        let data: [UInt8]
        let status: Int32
        switch child.run(input: Array(request.text.utf8), timeout: wallLimit) {
        case .notStarted(let e):
            // Out of descriptors is the machine's fault; PROJ in-process would only say it cannot find proj.db.
            if OpenFileLimit.isExhausted(e) {
                return .failure(.tooManyOpenFiles(what: request.helperStep, reason: OpenFileLimit.reason(errno: e)))
            }
            // The helper cannot start (e.g. under valgrind): the sanitized in-process path is the remaining defence.
            return Result { () throws(ProjectionError) -> CRSInfo in try request.resolveHere() }
        case .timedOut:
            return .failure(request.failure("PROJ did not finish within \(Int(wallLimit)) s"))
        case .signaled(let signal) where signal == SIGXCPU:
            return .failure(request.failure("PROJ did not finish within \(cpuLimit) s of CPU time"))
        case .signaled(let signal):
            return .failure(request.failure("PROJ crashed (signal \(signal))"))
        case .exited(let code, let output):
            (status, data) = (code, output)
        }
        guard let answer = Answer(text: String(decoding: data, as: UTF8.self)) else {
            if let exhausted = ProjectionError.exhausted(request.helperStep) { return .failure(exhausted) }
            return .failure(request.failure("the CRS helper gave no answer (exit \(status))"))
        }
        if let crs = answer.crs { return .success(crs) }
        if let failure = answer.failure { return .failure(failure) }
        switch request {
        case .prj(_, let file): return .failure(.unparseablePrj(file: file, detail: answer.error ?? "unknown error"))
        case .override(let text): return .failure(.badOverride(text: text, detail: answer.error ?? "unknown error"))
        }
    }

    /// Writes to a pipe whose reader may already be gone (a crashed child): `EPIPE` is ignored, and the SIGPIPE it
    /// raises is blocked on this thread and consumed, so it can never kill the parent.
    static func writeIgnoringBrokenPipe(_ fd: Int32, _ bytes: [UInt8]) {
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &block, &previous)
        var brokenPipe = false
        bytes.withUnsafeBytes { raw in
            guard var p = raw.baseAddress else { return }
            var left = raw.count
            while left > 0 {
                let n = write(fd, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    brokenPipe = errno == EPIPE
                    return
                }
                p += n
                left -= n
            }
        }
        if brokenPipe {
            var zero = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&block, nil, &zero)
        }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }

    /// The child's side: reads `.prj` text (or, with `override`, the user's CRS text) from stdin, resolves it and
    /// builds its transformations, prints an `Answer`. Returns the process exit code.
    public static func serveChild(prjFile: String?, override: Bool = false) -> Int32 {
        var limit = rlimit(rlim_cur: rlim_t(cpuLimit), rlim_max: rlim_t(cpuLimit + 1))
        _ = setrlimit(Int32(RLIMIT_CPU.rawValue), &limit)
        let data = FileHandle.standardInput.readDataToEndOfFile()
        let text = String(decoding: data, as: UTF8.self)
        var answer = Answer()
        do {
            let crs =
                try override
                ? CRSResolver.resolve(prjText: nil, override: text, prjFile: nil)
                : CRSResolver.resolve(prjText: text, override: nil, prjFile: prjFile)
            _ = try CoordinateTransformer(from: crs, to: .wgs84)
            _ = try CoordinateTransformer(from: crs, to: .webMercator)
            answer.crs = crs
        } catch {
            answer.error = error.description
            answer.failure = error
        }
        StandardStreams.write(answer.json.text(.compact), to: .output)
        return answer.crs == nil ? ExitCode.dataError.rawValue : 0
    }
}
