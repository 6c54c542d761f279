import Dispatch
import Glibc
import Synchronization

/// The write end of the signal pipe, read by the C signal handler (an atomic load is async-signal-safe).
private let signalPipeWriteFD = Atomic<Int32>(-1)

/// The process's signal handler: writes the signal number into the pipe and returns. Only async-signal-safe
/// calls (`write`), errno preserved; a full pipe drops the byte (the run is being stopped anyway).
private func signalHubHandler(_ signal: Int32) {
    let fd = signalPipeWriteFD.load(ordering: .relaxed)
    guard fd >= 0 else { return }
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(fd, &byte, 1)
    errno = saved
}

/// Process-wide signal plumbing for `SignalTrap`: a `sigaction` handler that writes to a self-pipe, and a
/// `DispatchSource` that reads the pipe and calls the listeners on a private queue.
///
/// `DispatchSource.makeSignalSource` is not used: libdispatch installs its own handler only once per process
/// and only after an asynchronous registration, so a signal sent right after installing a trap, or after a
/// trap was removed and the disposition restored, would be lost. Here the handler is in place when `add`
/// returns, and the previous disposition is restored when the last listener of a signal is removed.
final class SignalHub: Sendable {
    static let shared = SignalHub()

    private struct Listener {
        var signals: [Int32]
        var handler: @Sendable (Int32) -> Void
    }

    private struct State {
        var listeners: [(id: Int, listener: Listener)] = []
        var nextID = 0
        /// The disposition each caught signal had before, to restore it.
        var previous: [(signal: Int32, action: sigaction)] = []
        var source: (any DispatchSourceRead)?
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "kartpack.signals")
    private let readFD: Int32

    private init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        } else {
            fds = [-1, -1]
        }
        readFD = fds[0]
        signalPipeWriteFD.store(fds[1], ordering: .relaxed)
        guard fds[0] >= 0 else { return }
        let readFD = fds[0]
        let queue = self.queue
        state.withLock { s in
            let source = DispatchSource.makeReadSource(fileDescriptor: readFD, queue: queue)
            source.setEventHandler { [weak self] in self?.drain() }
            source.resume()
            s.source = source
        }
    }

    /// True when the pipe could be made (signals can be caught).
    var isWorking: Bool { readFD >= 0 }

    /// Starts calling `handler` for `signals`; installs the process handler for signals nobody caught yet.
    func add(signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) -> Int {
        state.withLock { s in
            for sig in signals where !s.previous.contains(where: { $0.signal == sig }) {
                // `nohup` starts a job with SIGHUP ignored so it survives the terminal: keep it that way.
                if sig == SIGHUP, Self.isIgnored(sig) { continue }
                var action = sigaction()
                action.__sigaction_handler.sa_handler = signalHubHandler
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                var old = sigaction()
                if sigaction(sig, &action, &old) == 0 { s.previous.append((sig, old)) }
            }
            let id = s.nextID
            s.nextID += 1
            s.listeners.append((id, Listener(signals: signals, handler: handler)))
            return id
        }
    }

    /// Stops calling listener `id`; restores the previous disposition of signals no listener wants any more.
    func remove(_ id: Int) {
        state.withLock { s in
            s.listeners.removeAll { $0.id == id }
            s.previous.removeAll { entry in
                guard !s.listeners.contains(where: { $0.listener.signals.contains(entry.signal) }) else { return false }
                var old = entry.action
                _ = sigaction(entry.signal, &old, nil)
                return true
            }
        }
    }

    /// True when the signal's current disposition is SIG_IGN.
    static func isIgnored(_ sig: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(sig, nil, &current) == 0 else { return false }
        let handler = current.__sigaction_handler.sa_handler
        return handler.map { unsafeBitCast($0, to: Int.self) == 1 } ?? false
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(readFD, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            for byte in buffer[..<n] {
                let sig = Int32(byte)
                let handlers = state.withLock { s in
                    s.listeners.filter { $0.listener.signals.contains(sig) }.map(\.listener.handler)
                }
                for h in handlers { h(sig) }
            }
        }
    }
}
