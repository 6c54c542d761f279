import KartpackCore
import Reprojection

/// Stage 1 of the feature chain: source CRS → Web Mercator metres with PROJ, in place, with the polar check.
///
/// One per worker: it keeps one PROJ transformer per source CRS for the worker's life (PROJ contexts are never
/// shared between threads).
package final class ReprojectStage {
    private var transformers: [CRSInfo: CoordinateTransformer] = [:]

    /// Longitudes in the 0–360° convention (Pacific-centred data: every longitude within 0…360 and some beyond
    /// 180) are wrapped to −180…180 in place: x − 360 for x > 180. A feature that crossed 180° (120°E…240°E)
    /// then jumps at the antimeridian and `AntimeridianStage` splits it; one wholly beyond 180° (200°E…220°E)
    /// lands where it belongs (160°W…140°W). The mirror case is wrapped too: a feature whose longitudes all lie
    /// in −360…0 with some west of −180° (MapServer's `meteo.shp` has points at −194.8°) gets x + 360 for
    /// x < −180, as GDAL keeps such points. Returns whether anything was wrapped. Longitudes beyond ±360 (or all
    /// within −180…180) are left alone.
    static func wrapZeroTo360(_ xy: inout [Double]) -> Bool {
        var lo = Double.infinity
        var hi = -Double.infinity
        var i = 0
        while i < xy.count {
            lo = min(lo, xy[i])
            hi = max(hi, xy[i])
            i += 2
        }
        if hi > 180, hi <= 360, lo >= 0 {
            i = 0
            while i < xy.count {
                if xy[i] > 180 { xy[i] -= 360 }
                i += 2
            }
            return true
        }
        guard lo < -180, lo >= -360, hi <= 0 else { return false }
        i = 0
        while i < xy.count {
            if xy[i] < -180 { xy[i] += 360 }
            i += 2
        }
        return true
    }

    /// Reprojects `g`. Records `wrapped_longitudes` when 0–360° longitudes were wrapped,  `clipped_polar` in `repairs`
    /// when latitudes beyond ±85.0511°
    /// were clamped to the Web Mercator edge; rejects a feature that cannot be transformed or lies wholly beyond.
    package func apply(_ g: inout Geometry, from crs: CRSInfo, repairs: inout Set<ReasonCode>) throws(FeatureIssue) {
        let transformer: CoordinateTransformer
        if let t = transformers[crs] {
            transformer = t
        } else {
            do {
                transformer = try CoordinateTransformer(from: crs, to: .webMercator)
            } catch {
                throw FeatureIssue(code: .reprojectionFailed, message: error.description)
            }
            transformers[crs] = transformer
        }
        if crs.isGeographic, Self.wrapZeroTo360(&g.xy) { repairs.insert(.wrappedLongitudes) }
        let failed = transformer.transform(&g.xy)
        if failed > 0 {
            throw FeatureIssue(
                code: .reprojectionFailed,
                message: "\(failed) of \(g.pointCount) coordinates could not be transformed to Web Mercator "
                    + "(outside the CRS's domain)")
        }
        guard let b = g.bounds else {
            throw FeatureIssue(code: .emptyGeometry, message: "geometry has no coordinates")
        }
        let h = SphericalMercator.halfWorld
        if b.minY >= h || b.maxY <= -h {
            throw FeatureIssue(
                code: .outsideWebMercator, message: "geometry lies beyond ±85.0511° latitude, outside Web Mercator")
        }
        if b.maxY >= h || b.minY <= -h { repairs.insert(.clippedPolar) }
    }
}
