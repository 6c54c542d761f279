import Glibc
import KartpackCore
import Synchronization

/// Catches SIGINT, SIGTERM and SIGHUP so a run can remove its temporary files and exit 130 / 143 instead of dying
/// with half-written files next to the output.
///
/// Installing a trap replaces the signals' default action (which would kill the process) with a handler that
/// forwards them through a pipe to a `DispatchSource` (see `SignalHub`; the handler is in place when `init`
/// returns, so no signal sent afterwards is lost). On the first signal the trap records it, sets
/// `cancelled`, and runs the registered cleanups once (last registered first). Then:
/// - `.flag`: the run is expected to poll `cancelled`, stop, and exit with `exitCode`. A second signal exits at
///   once (`_exit(128 + signal)`), for a user who presses Ctrl-C twice.
/// - `.cleanupAndExit`: the process exits at once with `128 + signal` after the cleanups.
///
/// Traps may be nested or used from tests in parallel: the previous disposition is restored only when the last
/// trap for a signal is removed (`uninstall()` or deinit).
package final class SignalTrap: Sendable {
    /// What happens after the cleanups of the first signal.
    package enum Action: Sendable {
        /// Set `cancelled` and let the run stop itself.
        case flag
        /// Exit the process with `128 + signal`.
        case cleanupAndExit
    }

    private struct Cleanup {
        var id: Int
        var run: @Sendable () -> Void
    }

    private struct State {
        var signal: Int32?
        var received = 0
        var cleanups: [Cleanup] = []
        var nextID = 0
        var cleanedUp = false
        var cleanupsFinished = false
        var listener: Int?
    }

    /// Signals caught by this trap.
    package let signals: [Int32]
    /// What happens after the first signal.
    package let action: Action
    /// Set when the first signal arrives (after `cancelled` turns true), so long loops stop within a second.
    package let cancellation: CancellationFlag?
    private let state = Mutex(State())

    /// Installs the trap for `signals` (SIGINT, SIGTERM and SIGHUP by default; a lost terminal or session stops a
    /// run the same clean way as SIGTERM). `cancels` is set on the first signal: pass `.process` from a command so
    /// the geometry loops of the run notice it.
    package init(
        signals: [Int32] = [SIGINT, SIGTERM, SIGHUP], action: Action = .flag, cancels: CancellationFlag? = nil
    ) {
        self.signals = signals
        self.action = action
        self.cancellation = cancels
        let id = SignalHub.shared.add(signals: signals) { [weak self] sig in self?.received(sig) }
        state.withLock { $0.listener = id }
    }

    /// Installs a trap (the same as `init`); pair with `remove()`.
    package static func install(signals: [Int32] = [SIGINT, SIGTERM, SIGHUP], action: Action = .flag) -> SignalTrap {
        SignalTrap(signals: signals, action: action)
    }

    deinit { uninstall() }

    /// The same as `uninstall()`.
    package func remove() { uninstall() }

    /// True once one of the signals arrived.
    package var cancelled: Bool { state.withLock { $0.signal != nil } }

    /// The first signal received, if any.
    package var signal: Int32? { state.withLock { $0.signal } }

    /// The exit code for the first signal: `.interrupted` (130) for SIGINT, `.terminated` (143) for SIGTERM,
    /// `.hangup` (129) for SIGHUP, nil before any signal (or for another signal: use `128 + signal`).
    package var exitCode: ExitCode? {
        switch signal {
        case SIGINT?: .interrupted
        case SIGTERM?: .terminated
        case SIGHUP?: .hangup
        default: nil
        }
    }

    /// Registers a cleanup (e.g. removing a temp file) to run when a signal arrives; returns an id for
    /// `removeCleanup`. A cleanup registered after the signal arrived runs at once.
    @discardableResult
    package func addCleanup(_ cleanup: @escaping @Sendable () -> Void) -> Int {
        let (id, runNow) = state.withLock { s -> (Int, Bool) in
            let id = s.nextID
            s.nextID += 1
            if s.cleanedUp { return (id, true) }
            s.cleanups.append(Cleanup(id: id, run: cleanup))
            return (id, false)
        }
        if runNow { cleanup() }
        return id
    }

    /// Forgets a cleanup (its file was published or removed by the normal path).
    package func removeCleanup(_ id: Int) {
        state.withLock { $0.cleanups.removeAll { $0.id == id } }
    }

    /// Runs the registered cleanups now (last registered first), once; later ones run as they are registered.
    package func runCleanups() {
        let pending = state.withLock { s -> [Cleanup] in
            guard !s.cleanedUp else { return [] }
            s.cleanedUp = true
            defer { s.cleanups = [] }
            return s.cleanups
        }
        for c in pending.reversed() { c.run() }
        state.withLock { $0.cleanupsFinished = true }
    }

    /// Blocks until a signal arrived or `seconds` passed; returns whether one arrived (for tests and waits).
    package func wait(seconds: Double) -> Bool {
        let deadline = UTCTimestamp.now() + seconds
        while !cancelled {
            if UTCTimestamp.now() >= deadline { return false }
            usleep(5_000)
        }
        // The flag is set before the cleanups run: wait for them too.
        while state.withLock({ !$0.cleanupsFinished }) && UTCTimestamp.now() < deadline { usleep(2_000) }
        return true
    }

    /// Stops listening and, when this was the last trap for a signal, restores its disposition. Safe to call more
    /// than once.
    package func uninstall() {
        let id = state.withLock { s -> Int? in
            defer { s.listener = nil }
            return s.listener
        }
        if let id { SignalHub.shared.remove(id) }
    }

    private func received(_ sig: Int32) {
        let (count, cleanups) = state.withLock { s -> (Int, [Cleanup]) in
            s.received += 1
            if s.signal == nil { s.signal = sig }
            guard !s.cleanedUp else { return (s.received, []) }
            s.cleanedUp = true
            defer { s.cleanups = [] }
            return (s.received, s.cleanups)
        }
        cancellation?.cancel()
        for c in cleanups.reversed() { c.run() }
        state.withLock { $0.cleanupsFinished = true }
        if action == .cleanupAndExit || count > 1 { _exit(ExitCode.status(afterSignal: sig)) }
    }
}
