import Foundation
import Synchronization

/// Writes to stdout and stderr without ever trapping, and remembers when a write failed.
///
/// `FileHandle.write` traps (`Fatal error: 'try!'`) on a closed descriptor (`>&-`), a full device (`> /dev/full`)
/// or a broken pipe. Here every write is a checked `write(2)` loop: a failure marks the stream as failed (later
/// writes to it are skipped, so a run is never slowed down or stopped by its console) and is remembered, so the
/// process can end with exit 74 (141 for a broken pipe) once its real work is done. The work itself — a package
/// being published, a report written — is never affected.
///
/// `protectDescriptors()` must run first thing in `main`: when the process was started with descriptor 0, 1 or 2
/// closed, the next `open` would get that number, and text meant for stdout would land in a package or an input.
/// Each closed descriptor is therefore filled with `/dev/null` and its stream marked as failed (`EBADF`).
public enum StandardStreams {
    /// One of the two output streams.
    public enum Stream: Int32, Sendable {
        case output = 1
        case error = 2
    }

    private struct State {
        var failed: [Int32: Int32] = [:]
    }

    private static let state = Mutex(State())

    /// Fills closed descriptors 0, 1 and 2 with `/dev/null`; a closed 1 or 2 counts as a failed stream (`EBADF`).
    /// SIGPIPE is ignored so a reader that went away shows up as `EPIPE` on the write, not as a kill mid-run.
    public static func protectDescriptors() {
        signal(SIGPIPE, SIG_IGN)
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
            if null >= 0, null != fd {
                _ = dup2(null, fd)
                _ = close(null)
            }
            if fd > 0 { state.withLock { $0.failed[fd] = EBADF } }
        }
    }

    /// Writes `text` to the stream; false when the stream failed (now or earlier).
    @discardableResult
    public static func write(_ text: String, to stream: Stream) -> Bool {
        let fd = stream.rawValue
        if state.withLock({ $0.failed[fd] != nil }) { return false }
        var bytes = Array(text.utf8)
        let error: Int32? = bytes.withUnsafeMutableBytes { raw -> Int32? in
            guard var p = raw.baseAddress else { return nil }
            var left = raw.count
            while left > 0 {
                let n = Glibc.write(fd, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { return EIO }
                p += n
                left -= n
            }
            return nil
        }
        guard let error else { return true }
        state.withLock { s in if s.failed[fd] == nil { s.failed[fd] = error } }
        return false
    }

    /// The errno of the first failed write to `stream`, or nil.
    public static func failure(of stream: Stream) -> Int32? {
        state.withLock { $0.failed[stream.rawValue] }
    }

    /// The exit code a command that finished with `code` ends with, given the console's failures: a successful
    /// command whose output could not be written exits 141 when a reader closed a pipe (`EPIPE`, as a process
    /// killed by SIGPIPE would) and 74 otherwise; a command that already failed keeps its own, more specific code.
    public static func exitCode(after code: Int32) -> Int32 {
        guard code == 0 else { return code }
        let failures = state.withLock { Array($0.failed.values) }
        if failures.isEmpty { return code }
        return failures.contains(EPIPE) ? ExitCode.brokenPipe.rawValue : ExitCode.ioError.rawValue
    }

    /// A one-line description of the failures, for a last attempt at saying why the exit code is 74.
    public static func failureSummary() -> String? {
        let failed = state.withLock { $0.failed }
        guard !failed.isEmpty else { return nil }
        return failed.keys.sorted().map { fd in
            "\(fd == 1 ? "stdout" : "stderr"): \(String(cString: strerror(failed[fd] ?? 0)))"
        }.joined(separator: "; ")
    }

    /// Forgets failures (for tests).
    public static func reset() {
        state.withLock { $0.failed = [:] }
    }
}
