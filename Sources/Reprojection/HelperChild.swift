import Glibc
import KartpackCore

/// One short-lived child process with its stdin fed from memory and its stdout read back, under a wall-clock
/// limit; the CRS helper (`IsolatedCRS`) runs in one.
///
/// Spawned with `posix_spawn` and two close-on-exec pipes, read with `poll` on the calling thread: four descriptors
/// while it runs and none after. (Foundation's `Process` costs about a dozen more — run-loop sockets, timer and
/// event descriptors of dispatch threads — and traps when it cannot get them, so a low `ulimit -n` crashed the
/// run instead of failing cleanly.)
struct HelperChild {
    /// How a child ended.
    enum Outcome {
        /// It exited with `status`; `output` is what it wrote to stdout.
        case exited(status: Int32, output: [UInt8])
        /// It was killed by `signal`.
        case signaled(signal: Int32)
        /// It ran past the time limit and was killed.
        case timedOut
        /// It could not be started; `errno` says why (EMFILE/ENFILE when out of descriptors).
        case notStarted(errno: Int32)
    }

    /// Largest stdout kept; an answer is a few hundred bytes.
    static let maxOutput = 1 << 20

    let executable: String
    let arguments: [String]

    /// Runs the child with `input` on stdin, stderr to /dev/null, and waits at most `timeout` seconds.
    func run(input: [UInt8], timeout: Double) -> Outcome {
        var stdinPipe: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        guard Self.cloexecPipe(&stdinPipe) == 0 else { return .notStarted(errno: errno) }
        guard Self.cloexecPipe(&stdoutPipe) == 0 else {
            let e = errno
            close(stdinPipe[0])
            close(stdinPipe[1])
            return .notStarted(errno: e)
        }
        var pid: pid_t = 0
        var spawnError = spawn(&pid, stdin: stdinPipe[0], stdout: stdoutPipe[1])
        // ETXTBSY: the executable is open for writing somewhere (being replaced, or another thread's fork still holds
        // the descriptor it was written with); that passes within milliseconds on a quiet machine and within about a
        // second under heavy load (a fork of another thread waits for a CPU before its exec closes the descriptor),
        // so try again for up to 2 s.
        var attempts = 0
        while spawnError == ETXTBSY, attempts < 40 {
            attempts += 1
            usleep(50_000)
            spawnError = spawn(&pid, stdin: stdinPipe[0], stdout: stdoutPipe[1])
        }
        close(stdinPipe[0])
        close(stdoutPipe[1])
        guard spawnError == 0 else {
            close(stdinPipe[1])
            close(stdoutPipe[0])
            return .notStarted(errno: spawnError)
        }
        // The child reads all of stdin before it answers; a crashed child's broken pipe is ignored.
        IsolatedCRS.writeIgnoringBrokenPipe(stdinPipe[1], input)
        close(stdinPipe[1])
        let (output, finished) = readUntilEOF(stdoutPipe[0], deadline: timeout)
        close(stdoutPipe[0])
        if !finished { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if !finished { return .timedOut }
        // <sys/wait.h>: the low 7 bits are the terminating signal (0 for a normal exit), bits 8-15 the exit status.
        let signal = status & 0x7F
        if signal != 0 && signal != 0x7F { return .signaled(signal: signal) }
        return .exited(status: (status >> 8) & 0xFF, output: output)
    }

    /// `pipe` with both ends close-on-exec (Glibc's Swift module has no `pipe2`); the file actions dup the child's
    /// ends onto 0 and 1, which clears the flag there.
    private static func cloexecPipe(_ fds: inout [Int32]) -> Int32 {
        guard pipe(&fds) == 0 else { return -1 }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return 0
    }

    /// `posix_spawn` with `stdin`/`stdout` as the child's 0 and 1, /dev/null as 2, and default SIGPIPE handling and
    /// an empty signal mask (the parent ignores SIGPIPE and may block signals). Returns 0 or an errno.
    private func spawn(_ pid: inout pid_t, stdin: Int32, stdout: Int32) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        return posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    }

    /// Reads `fd` to its end or until `deadline` seconds passed; the flag says whether the end was reached.
    private func readUntilEOF(_ fd: Int32, deadline: Double) -> ([UInt8], Bool) {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let end = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 + deadline
        while true {
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = end - (Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
            if left <= 0 { return (out, false) }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                return (out, false)
            }
            if ready == 0 { continue }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return (out, true)
            }
            if n == 0 { return (out, true) }
            if out.count < Self.maxOutput { out.append(contentsOf: chunk[..<n]) }
        }
    }
}
