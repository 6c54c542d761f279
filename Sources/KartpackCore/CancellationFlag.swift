import Synchronization

/// A flag that long loops poll to stop early when a run is being cancelled (SIGINT, SIGTERM, SIGHUP).
///
/// `SignalTrap(cancels:)` sets it when a signal arrives. The geometry loops that can take seconds on one feature
/// (Douglas–Peucker, ring validation, quantization, rectangle clipping, ring assembly, MVT encoding) and every
/// GEOS call (`GeometryEngine`, which also interrupts GEOS itself through its interrupt callback) take a flag,
/// `.process` by default, and check it every few thousand steps. Once it is set they return early with a partial
/// result or throw `GeometryError.interrupted`: whoever set the flag must make sure nothing computed after that is
/// published — the pipeline checks its own cancellation before it writes anything.
public final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A fresh flag, not set.
    public init() {}

    /// The flag the `kartpack` commands' signal traps set: one run per process.
    public static let process = CancellationFlag()

    /// A flag that is never set (for callers that must not be interrupted).
    public static let never = CancellationFlag()

    /// True once `cancel()` was called.
    @inline(__always)
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// Sets the flag (`never` ignores it).
    public func cancel() {
        guard self !== Self.never else { return }
        flag.store(true, ordering: .relaxed)
    }

    /// Clears the flag (for tests).
    public func reset() { flag.store(false, ordering: .relaxed) }

    /// Polls every `stride` steps (a power of two): true when `step` is a multiple of it and the flag is set.
    @inline(__always)
    public func isCancelled(atStep step: Int, every stride: Int = 4096) -> Bool {
        step & (stride - 1) == 0 && isCancelled
    }
}
