/// Process exit codes, following `sysexits.h`: the one table of the statuses `kartpack` exits with (listed in the
/// README's *Exit codes*; `ExitCodeTableTests` checks that both list the same codes and that no exit status is
/// written as a number elsewhere in Sources).
public enum ExitCode: Int32, Sendable, Hashable, Codable, CaseIterable {
    case success = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    /// A program Kartpack needs is not installed (EX_UNAVAILABLE), such as `minisign`.
    case unavailable = 69
    case software = 70
    case cantCreate = 73
    case ioError = 74
    case tempFail = 75
    case config = 78
    /// SIGHUP (the terminal or session went away): handled like SIGTERM, exit 128 + 1.
    case hangup = 129
    case interrupted = 130
    /// A reader closed the pipe stdout writes to (what a process killed by SIGPIPE would report).
    case brokenPipe = 141
    case terminated = 143

    /// The status of a process ended by `signal`, as a shell reports it: 128 + the signal number (`hangup`,
    /// `interrupted` and `terminated` for SIGHUP, SIGINT and SIGTERM).
    public static func status(afterSignal signal: Int32) -> Int32 { 128 + signal }
}

/// An error that knows which exit code it maps to.
public protocol KartpackError: Error, CustomStringConvertible {
    /// The process exit code this error ends a run with.
    var exitCode: ExitCode { get }
}
