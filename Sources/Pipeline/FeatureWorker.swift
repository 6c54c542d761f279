import Foundation
import GeometryOps
import KartpackCore
import Reprojection
import VectorTile

/// One feature handed to a worker.
struct FeatureJob: Sendable {
    var layer: Int
    var crs: CRSInfo
    var feature: Feature
    var zooms: ClosedRange<Int>
}

/// Per-thread state of the feature phase: a GEOS context (in the tiler) and one PROJ transformer per source CRS.
/// Created on the worker's thread and never shared.
final class FeatureWorker {
    private let tiler: FeatureTiler
    private var transformers: [CRSInfo: CoordinateTransformer] = [:]

    init(parameters: TilingParameters) {
        tiler = FeatureTiler(parameters: parameters)
    }

    /// Reprojects a feature to Web Mercator and cuts it into tile pieces.
    func process(_ job: FeatureJob) -> TilingOutcome {
        var outcome = TilingOutcome()
        let transformer: CoordinateTransformer
        if let t = transformers[job.crs] {
            transformer = t
        } else {
            do {
                transformer = try CoordinateTransformer(from: job.crs, to: .webMercator)
            } catch {
                outcome.rejection = ("reprojection_failed", error.description)
                return outcome
            }
            transformers[job.crs] = transformer
        }
        var g = job.feature.geometry.droppingZM
        let failed = transformer.transform(&g.xy)
        if failed > 0 {
            outcome.rejection = (
                "reprojection_failed",
                "\(failed) of \(g.pointCount) coordinates could not be transformed to Web Mercator (outside the CRS's domain)"
            )
            return outcome
        }
        guard let b = g.bounds else {
            outcome.rejection = ("empty_geometry", "geometry has no coordinates")
            return outcome
        }
        let h = WebMercator.halfWorld
        if b.minY >= h || b.maxY <= -h {
            outcome.rejection = ("outside_web_mercator", "geometry lies beyond ±85.0511° latitude, outside Web Mercator")
            return outcome
        }
        outcome.bounds = b
        if let copies = Antimeridian.unwrap(g) {
            outcome.repairs["antimeridian_split"] = 1
            for copy in copies {
                let o = tiler.tile(copy, zooms: job.zooms)
                if let r = o.rejection {
                    outcome.rejection = r
                    outcome.pieces = []
                    return outcome
                }
                outcome.pieces += o.pieces
                outcome.repairs.add(o.repairs)
                outcome.collapsedAt = outcome.collapsedAt.isEmpty ? o.collapsedAt : outcome.collapsedAt.filter(o.collapsedAt.contains)
            }
            outcome.pieces.sort { $0.tile < $1.tile }
            return outcome
        }
        let o = tiler.tile(g, zooms: job.zooms)
        outcome.pieces = o.pieces
        outcome.repairs.add(o.repairs)
        outcome.collapsedAt = o.collapsedAt
        outcome.rejection = o.rejection
        return outcome
    }
}
