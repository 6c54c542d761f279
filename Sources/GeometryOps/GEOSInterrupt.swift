internal import CGEOS
import KartpackCore

/// Lets a cancelled run stop inside a long GEOS call (MakeValid, overlay, validity of a huge ring).
///
/// GEOS 3.11's interrupt is process-wide (per-context interrupts came in 3.14): a callback registered once is
/// called at GEOS's own check points on every thread, and when `CancellationFlag.process` is set it requests the
/// interrupt, so every running GEOS call fails with "Interrupted!" and `GeometryEngine` throws
/// `GeometryError.interrupted`. That is what cancellation wants: the whole run stops. No context is shared.
enum GEOSInterrupt {
    /// Registers the callback (once per process; `GeometryEngine.init` calls it).
    static let installed: Bool = {
        _ = GEOS_interruptRegisterCallback { if CancellationFlag.process.isCancelled { GEOS_interruptRequest() } }
        return true
    }()
}
