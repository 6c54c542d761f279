internal import CGEOS
public import KartpackCore

/// Collects the messages GEOS reports through the context's handlers.
final class GEOSMessages {
    var error: String?
    var notice: String?
}

/// A GEOS context for one thread, and the operations the tiler and the stylesheet need.
///
/// Create one per worker thread and never hand it (or any `EngineGeometry` it made) to another thread: GEOS
/// contexts, geometries and prepared geometries are not thread-safe. The type is deliberately not `Sendable`.
/// Geometry crosses the module boundary only as KartpackCore `Geometry`; GEOS handles never leave the module.
public final class GeometryEngine {
    /// The largest coordinate magnitude handed to GEOS. GEOS 3.11 topology-preserving simplification never
    /// returns on values near 1e308 (GEOS #1070), so larger values are rejected up front.
    public static let coordinateLimit: Double = 1e300

    let ctx: OpaquePointer
    let messages = GEOSMessages()
    /// The buffers of the last `TileClipper`'s moment checks, for the next one: a feature cut to many tiles (a
    /// coastline of half a million vertices through eleven zooms) then copies and clips its rings in the same
    /// memory, instead of allocating arrays of its size for every tile. Held until `releaseScratch()`.
    var momentScratch = RectMomentCalculator.Scratch()

    /// Creates a GEOS context with error and notice handlers installed.
    public init() {
        // GEOS_init_r only fails when `new` fails, which Swift could not survive either.
        guard let context = GEOS_init_r() else { preconditionFailure("GEOS_init_r failed: out of memory") }
        _ = GEOSInterrupt.installed
        ctx = context
        let box = Unmanaged.passUnretained(messages).toOpaque()
        _ = GEOSContext_setErrorMessageHandler_r(
            ctx,
            { message, userdata in
                guard let message, let userdata else { return }
                Unmanaged<GEOSMessages>.fromOpaque(userdata).takeUnretainedValue().error = String(cString: message)
            }, box)
        _ = GEOSContext_setNoticeMessageHandler_r(
            ctx,
            { message, userdata in
                guard let message, let userdata else { return }
                Unmanaged<GEOSMessages>.fromOpaque(userdata).takeUnretainedValue().notice = String(cString: message)
            }, box)
    }

    /// Frees the buffers kept from one clip to the next (`momentScratch`): call it when a feature is done, so that
    /// the largest feature's buffers are not held for the rest of the run.
    public func releaseScratch() { momentScratch = RectMomentCalculator.Scratch() }

    deinit {
        // Every EngineGeometry keeps its engine alive, so no GEOS object outlives the context.
        GEOS_finish_r(ctx)
    }

    // MARK: - Error plumbing

    /// Clears the last GEOS message before a call whose failure will be reported.
    @inline(__always) func resetMessages() {
        messages.error = nil
        messages.notice = nil
    }

    /// The error to throw when `operation` failed.
    func failure(_ operation: String) -> GeometryError {
        if CancellationFlag.process.isCancelled { return .interrupted }
        let message = messages.error ?? messages.notice ?? "GEOS returned no result"
        return .geos(message: message, operation: operation)
    }

    /// Wraps an owned GEOS result, or throws the collected message when it is NULL.
    func own(_ result: OpaquePointer?, _ operation: String) throws(GeometryError) -> EngineGeometry {
        guard let result else { throw failure(operation) }
        return EngineGeometry(engine: self, pointer: result)
    }

    /// Interprets a GEOS predicate result: 1 true, 0 false, anything else (2) an exception.
    func predicate(_ value: CChar, _ operation: String) throws(GeometryError) -> Bool {
        switch value {
        case 1: return true
        case 0: return false
        default: throw failure(operation)
        }
    }

    // MARK: - Coordinate checks

    /// Throws `nonFinite` or `outOfRange` for the first coordinate GEOS must not see (NaN, ±Inf or a magnitude
    /// above `coordinateLimit`). Pure Swift: call it before any GEOS work on untrusted coordinates.
    public static func checkCoordinates(_ g: Geometry) throws(GeometryError) {
        try checkCoordinates(g.xy)
    }

    /// Throws `nonFinite` or `outOfRange` for the first unusable value of an interleaved coordinate array.
    public static func checkCoordinates(_ xy: [Double]) throws(GeometryError) {
        let limit = coordinateLimit
        let bad: Int? = xy.withUnsafeBufferPointer { buf in
            for i in buf.indices where !(abs(buf[i]) <= limit) { return i }
            return nil
        }
        guard let bad else { return }
        if xy[bad].isFinite { throw .outOfRange(pointIndex: bad / 2) }
        throw .nonFinite(pointIndex: bad / 2)
    }

    /// Throws `invalidArgument` unless `value` is finite and not negative.
    static func checkParameter(_ value: Double, _ name: String) throws(GeometryError) {
        guard value.isFinite, value >= 0, value <= coordinateLimit else {
            throw .invalidArgument("\(name) must be finite and not negative, got \(value)")
        }
    }

    /// Throws `invalidArgument` unless `rect` is finite with positive width and height.
    static func checkRect(_ rect: Bounds) throws(GeometryError) {
        let values = [rect.minX, rect.minY, rect.maxX, rect.maxY]
        guard values.allSatisfy({ abs($0) <= coordinateLimit }), rect.minX < rect.maxX, rect.minY < rect.maxY else {
            throw .invalidArgument("rectangle must be finite with positive area, got \(rect)")
        }
    }
}
