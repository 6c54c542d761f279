import Foundation
import GeometryOps
import KartpackCore
import Reprojection
import Styling
import VectorTile

/// One feature handed to a worker.
struct FeatureJob: Sendable {
    var context: LayerContext
    var feature: Feature
}

/// Per-thread state of the feature phase: a GEOS context (in the tiler), one PROJ transformer per source CRS,
/// and the GEOS indexes of shared polygons (clip region, ancestor sets). Created on the worker's thread and never
/// shared.
final class FeatureWorker {
    private let tiler: FeatureTiler
    private var transformers: [CRSInfo: CoordinateTransformer] = [:]
    private var ancestorIndexes: [Int: PolygonIndex] = [:]
    private var clipRegion: EngineGeometry?

    init(parameters: TilingParameters) {
        tiler = FeatureTiler(parameters: parameters)
    }

    private var engine: GeometryEngine { tiler.engine }

    /// Reprojects a feature to Web Mercator, clips it to the region, styles it and cuts it into tile pieces.
    func process(_ job: FeatureJob) -> TilingOutcome {
        var outcome = TilingOutcome()
        let ctx = job.context
        let transformer: CoordinateTransformer
        if let t = transformers[ctx.crs] {
            transformer = t
        } else {
            do {
                transformer = try CoordinateTransformer(from: ctx.crs, to: .webMercator)
            } catch {
                outcome.rejection = ("reprojection_failed", error.description)
                return outcome
            }
            transformers[ctx.crs] = transformer
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
        let h = SphericalMercator.halfWorld
        if b.minY >= h || b.maxY <= -h {
            outcome.rejection = ("outside_web_mercator", "geometry lies beyond ±85.0511° latitude, outside Web Mercator")
            return outcome
        }
        if b.maxY >= h || b.minY <= -h {
            // Latitudes beyond ±85.0511° were clamped to the Web Mercator edge.
            outcome.repairs["clipped_polar"] = 1
        }
        do {
            if let clip = ctx.clip {
                guard let clipped = try clipToRegion(g, bounds: b, region: clip) else {
                    outcome.rejection = ("outside_region", "feature lies outside the clip region")
                    return outcome
                }
                g = clipped
            }
        } catch {
            outcome.rejection = (error.diagnosticCode, error.description)
            return outcome
        }
        var zooms = ctx.zooms
        if let matcher = ctx.matcher {
            switch style(job.feature, geometry: g, matcher: matcher, context: ctx) {
            case .success(let styled):
                zooms = styled.zooms
                outcome.styled = styled
            case .failure(let rejection):
                outcome.rejection = rejection.pair
                return outcome
            }
        }
        outcome.bounds = g.bounds
        outcome.zooms = zooms
        // A feature crossing the antimeridian is tiled as two copies, one on each side of the world.
        let unwrapped = Antimeridian.unwrap(g)
        if unwrapped != nil { outcome.repairs["antimeridian_split"] = 1 }
        var collapsed: Set<Int>?
        for copy in unwrapped ?? [g] {
            let o = tiler.tile(copy, zooms: zooms)
            if let r = o.rejection {
                outcome.rejection = r
                outcome.pieces = []
                return outcome
            }
            outcome.pieces += o.pieces
            outcome.repairs.add(o.repairs)
            // Collapsed at a zoom only when no copy has anything there.
            collapsed = collapsed.map { $0.intersection(o.collapsedAt) } ?? Set(o.collapsedAt)
        }
        outcome.collapsedAt = (collapsed ?? []).sorted()
        if unwrapped != nil { outcome.pieces.sort { $0.tile < $1.tile } }
        return outcome
    }

    // MARK: Region

    private func clipToRegion(_ g: Geometry, bounds: Bounds, region: SharedPolygons) throws(GeometryError) -> Geometry? {
        guard bounds.intersects(region.bounds), let regionShape = region.geometries.first else { return nil }
        let regionGeometry: EngineGeometry
        if let c = clipRegion {
            regionGeometry = c
        } else {
            regionGeometry = try engine.prepare(regionShape)
            clipRegion = regionGeometry
        }
        var h = try engine.prepare(g)
        if g.kind.family == .polygon, try !engine.isValid(h) {
            guard let fixed = try engine.makeValid(h, family: .polygon) else { return nil }
            h = fixed
        }
        guard let clipped = try engine.intersection(h, regionGeometry, family: g.kind.family) else { return nil }
        return try engine.geometry(clipped, family: g.kind.family)
    }

    // MARK: Style

    private struct StyleRejection: Error {
        var code: String
        var message: String
        var pair: (code: String, message: String) { (code, message) }
    }

    private func style(
        _ feature: Feature, geometry: Geometry, matcher: LayerStyleMatcher, context ctx: LayerContext
    ) -> Result<StyledFeature, StyleRejection> {
        var point: (x: Double, y: Double)??
        var answers: [Int: Bool] = [:]
        let inside: (AncestorSelectorID) -> Bool = { id in
            if let a = answers[id.rawValue] { return a }
            if point == nil {
                point = .some((try? self.engine.prepare(geometry)).flatMap { try? self.engine.pointOnSurface($0) })
            }
            var result = false
            if let p = point ?? nil, let index = self.ancestorIndex(id.rawValue, context: ctx) {
                result = ((try? index.containing(x: p.x, y: p.y)) ?? []).isEmpty == false
            }
            answers[id.rawValue] = result
            return result
        }
        var styles: [ComputedStyle] = []
        if matcher.dependsOnZoom {
            for z in ctx.zooms { styles.append(matcher.style(properties: feature.properties, zoom: z, inside: inside)) }
        } else {
            let s = matcher.style(properties: feature.properties, zoom: ctx.zooms.upperBound, inside: inside)
            styles = Array(repeating: s, count: ctx.zooms.count)
        }
        let visible = ctx.zooms.filter { z in
            let s = styles[z - ctx.zooms.lowerBound]
            return !s.exclude && s.isVisible(atZoom: z)
        }
        guard let lo = visible.first, let hi = visible.last else {
            if styles.allSatisfy(\.exclude) {
                return .failure(StyleRejection(code: "excluded_by_style", message: "excluded by the stylesheet"))
            }
            return .failure(StyleRejection(
                code: "outside_style_zoom_range",
                message: "the stylesheet's min-zoom/max-zoom leave no zoom in \(ctx.zooms.lowerBound)-\(ctx.zooms.upperBound)"))
        }
        let top = styles[hi - ctx.zooms.lowerBound]
        let classes = (lo...hi).map { z -> String? in
            let s = styles[z - ctx.zooms.lowerBound]
            return (!s.exclude && s.isVisible(atZoom: z)) ? s.className : nil
        }
        return .success(StyledFeature(layer: top.layer, keep: top.keep, zooms: lo...hi, classes: classes))
    }

    private func ancestorIndex(_ id: Int, context: LayerContext) -> PolygonIndex? {
        if let i = ancestorIndexes[id] { return i }
        guard let polys = context.ancestors[id],
            let index = try? PolygonIndex(engine: engine, polygons: polys.geometries)
        else { return nil }
        ancestorIndexes[id] = index
        return index
    }
}
