internal import CGEOS
public import KartpackCore

/// A GEOS geometry owned by one `GeometryEngine`; destroyed with it in `deinit`.
///
/// Not `Sendable`: use it only on the thread of the engine that made it. It keeps that engine (and so the GEOS
/// context) alive. Treat it as immutable: operations return new handles (or, where documented, the same one).
public final class EngineGeometry {
    let engine: GeometryEngine
    let pointer: OpaquePointer

    init(engine: GeometryEngine, pointer: OpaquePointer) {
        self.engine = engine
        self.pointer = pointer
    }

    deinit {
        GEOSGeom_destroy_r(engine.ctx, pointer)
    }

    /// The family of the geometry's parts: the highest dimension present for a collection, nil when empty or
    /// when GEOS cannot tell.
    public var family: GeometryFamily? {
        engine.highestFamily(pointer)
    }
}
