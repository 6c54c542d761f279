import KartpackCore
import Reprojection

/// Stage 1 of the feature chain: source CRS → Web Mercator metres with PROJ, in place, with the polar check.
///
/// One per worker: it keeps one PROJ transformer per source CRS for the worker's life (PROJ contexts are never
/// shared between threads).
final class ReprojectStage {
    private var transformers: [CRSInfo: CoordinateTransformer] = [:]

    /// Reprojects `g` (Z and M dropped). Records `clipped_polar` in `repairs` when latitudes beyond ±85.0511°
    /// were clamped to the Web Mercator edge; rejects a feature that cannot be transformed or lies wholly beyond.
    func apply(_ g: inout Geometry, from crs: CRSInfo, repairs: inout Set<String>) throws(FeatureIssue) {
        let transformer: CoordinateTransformer
        if let t = transformers[crs] {
            transformer = t
        } else {
            do {
                transformer = try CoordinateTransformer(from: crs, to: .webMercator)
            } catch {
                throw FeatureIssue(code: "reprojection_failed", message: error.description)
            }
            transformers[crs] = transformer
        }
        g = g.droppingZM
        let failed = transformer.transform(&g.xy)
        if failed > 0 {
            throw FeatureIssue(
                code: "reprojection_failed",
                message: "\(failed) of \(g.pointCount) coordinates could not be transformed to Web Mercator "
                    + "(outside the CRS's domain)")
        }
        guard let b = g.bounds else {
            throw FeatureIssue(code: "empty_geometry", message: "geometry has no coordinates")
        }
        let h = SphericalMercator.halfWorld
        if b.minY >= h || b.maxY <= -h {
            throw FeatureIssue(
                code: "outside_web_mercator", message: "geometry lies beyond ±85.0511° latitude, outside Web Mercator")
        }
        if b.maxY >= h || b.minY <= -h { repairs.insert("clipped_polar") }
    }
}
