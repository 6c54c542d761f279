internal import CGEOS

/// A GEOS prepared geometry over a base geometry it keeps alive; destroyed before the base.
///
/// Prepared geometries build lazy caches on first use, so they stay on their engine's thread like everything
/// else here.
final class PreparedGeometry {
    let base: EngineGeometry
    let pointer: OpaquePointer

    init(_ base: EngineGeometry) throws(GeometryError) {
        let engine = base.engine
        engine.resetMessages()
        guard let p = GEOSPrepare_r(engine.ctx, base.pointer) else { throw engine.failure("GEOSPrepare") }
        self.base = base
        self.pointer = p
    }

    deinit {
        // Runs before `base` is released, so the prepared geometry never outlives its base (geos_c.h L4253ff).
        GEOSPreparedGeom_destroy_r(base.engine.ctx, pointer)
    }

    /// True when `g` lies in the interior of the base (touches no boundary).
    func containsProperly(_ g: EngineGeometry) throws(GeometryError) -> Bool {
        let engine = base.engine
        engine.resetMessages()
        return try engine.predicate(
            GEOSPreparedContainsProperly_r(engine.ctx, pointer, g.pointer), "GEOSPreparedContainsProperly")
    }

    /// True when `g` and the base share at least one point.
    func intersects(_ g: EngineGeometry) throws(GeometryError) -> Bool {
        let engine = base.engine
        engine.resetMessages()
        return try engine.predicate(GEOSPreparedIntersects_r(engine.ctx, pointer, g.pointer), "GEOSPreparedIntersects")
    }
}
