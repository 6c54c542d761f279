import GeometryOps
import KartpackCore

/// Stage 4 of the feature chain: the part of a feature inside the clip region (region packaging), at full
/// precision before tiling. One per worker: it prepares the run's region once on the worker's GEOS engine.
package final class ClipStage {
    private let engine: GeometryEngine
    private var prepared: EngineGeometry?

    package init(engine: GeometryEngine) {
        self.engine = engine
    }

    /// The part of `handle` (valid, extent `bounds`) inside `region`, with its extent; nil when nothing is left.
    package func apply(
        _ handle: EngineGeometry, bounds: Bounds, family: GeometryFamily, region: SharedPolygons
    ) throws(FeatureIssue) -> (EngineGeometry, Bounds)? {
        guard bounds.intersects(region.bounds), let shape = region.geometries.first else { return nil }
        do throws(GeometryError) {
            let regionGeometry: EngineGeometry
            if let r = prepared {
                regionGeometry = r
            } else {
                regionGeometry = try engine.prepare(shape)
                prepared = regionGeometry
            }
            guard let clipped = try engine.intersection(handle, regionGeometry, family: family),
                let b = try engine.bounds(clipped)
            else { return nil }
            return (clipped, b)
        } catch {
            throw FeatureIssue(code: error.diagnosticCode, message: error.description)
        }
    }
}
