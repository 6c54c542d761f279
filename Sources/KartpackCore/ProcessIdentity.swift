import Foundation

/// Who made a temporary file or folder, precisely enough to prove later that its maker is gone: the pid, the
/// process's start time (so a recycled pid is not mistaken for the owner), the pid namespace and the host (so a
/// process in another container or on another machine sharing the folder is never declared dead).
///
/// Written into a marker as one line: `kartpack <pid> <start-ticks> <pid-namespace> <host>`.
public struct ProcessIdentity: Sendable, Hashable {
    public var pid: Int32
    /// Field 22 of `/proc/<pid>/stat` (clock ticks since boot); 0 when unknown.
    public var startTicks: UInt64
    /// The target of `/proc/self/ns/pid`, e.g. `pid:[4026531836]`; empty when unknown.
    public var pidNamespace: String
    public var host: String

    /// This process.
    public static var current: ProcessIdentity {
        let pid = getpid()
        return ProcessIdentity(
            pid: pid, startTicks: startTicks(of: pid) ?? 0,
            pidNamespace: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")) ?? "",
            host: hostName())
    }

    /// The marker line.
    public var line: String { "kartpack \(pid) \(startTicks) \(pidNamespace.isEmpty ? "-" : pidNamespace) \(host)" }

    /// Parses a marker line; nil when it is not one.
    public init?(line: String) {
        let f = line.split(separator: " ", omittingEmptySubsequences: true)
        guard f.count == 5, f[0] == "kartpack", let pid = Int32(f[1]), pid > 0, let ticks = UInt64(f[2]) else {
            return nil
        }
        self.init(pid: pid, startTicks: ticks, pidNamespace: f[3] == "-" ? "" : String(f[3]), host: String(f[4]))
    }

    public init(pid: Int32, startTicks: UInt64, pidNamespace: String, host: String) {
        self.pid = pid
        self.startTicks = startTicks
        self.pidNamespace = pidNamespace
        self.host = host
    }

    /// True only when it is certain that this process no longer runs: same host and pid namespace as the caller,
    /// and no process with that pid, or one that started at another time. Anything uncertain is "not gone".
    public var isProvablyGone: Bool {
        let me = ProcessIdentity.current
        guard host == me.host, !pidNamespace.isEmpty, pidNamespace == me.pidNamespace else {
            return false
        }
        if kill(pid, 0) != 0 && errno == ESRCH { return true }
        guard startTicks != 0, let now = Self.startTicks(of: pid) else { return false }
        return now != startTicks
    }

    /// Field 22 (starttime) of `/proc/<pid>/stat`.
    static func startTicks(of pid: Int32) -> UInt64? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
            let text = String(data: data, encoding: .utf8), let close = text.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)" come fields 3…; starttime is field 22, the 20th after the parenthesis.
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count >= 20 ? UInt64(fields[19]) : nil
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "unknown" : name.replacingOccurrences(of: " ", with: "_")
    }
}
