import GeometryOps
import KartpackCore
import Styling

/// Stage 5 of the feature chain: the stylesheet's decisions for one feature at each zoom of its layer — class,
/// zoom range, output layer, kept attributes, exclusion, the client's match flags — answering descendant selectors
/// (`A B`) with the feature's point on surface against the ancestor polygons. One per worker: it builds its own
/// GEOS indexes of the ancestor sets.
package final class ClassifyStage {
    private let engine: GeometryEngine
    private var indexes: [Int: Result<PolygonIndex, GeometryError>] = [:]

    package init(engine: GeometryEngine) {
        self.engine = engine
    }

    /// The style decisions. `pointOnSurface` is asked at most once, only when a descendant selector needs it.
    /// Failed inside-tests count as "not inside" and are added to `warnings` (`ancestor_lookup_failed`).
    package func apply(
        _ feature: Feature, context ctx: LayerContext, matcher: LayerStyleMatcher,
        pointOnSurface: @escaping () throws(GeometryError) -> (x: Double, y: Double)?, warnings: inout [FeatureIssue]
    ) throws(FeatureIssue) -> StyledFeature {
        var point: (x: Double, y: Double)??
        var answers: [Int: Bool] = [:]
        var failures: [String] = []
        let inside: (AncestorSelectorID) -> Bool = { id in
            if let a = answers[id.rawValue] { return a }
            if point == nil {
                do throws(GeometryError) {
                    point = .some(try pointOnSurface())
                } catch {
                    point = .some(nil)
                    failures.append("no point on surface: \(error.description)")
                }
            }
            var result = false
            if let p = point ?? nil {
                switch self.index(id.rawValue, context: ctx) {
                case .success(let index)?:
                    do throws(GeometryError) {
                        result = try !index.containing(x: p.x, y: p.y).isEmpty
                    } catch {
                        failures.append("point-in-polygon test failed: \(error.description)")
                    }
                case .failure(let error)?:
                    failures.append("cannot index the ancestor polygons: \(error.description)")
                case nil:
                    break
                }
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
                throw FeatureIssue(code: .excludedByStyle, message: "excluded by the stylesheet")
            }
            throw FeatureIssue(
                code: .outsideStyleZoomRange,
                message:
                    "the stylesheet's min-zoom/max-zoom leave no zoom in "
                    + "\(ctx.zooms.lowerBound)-\(ctx.zooms.upperBound)"
            )
        }
        let top = styles[hi - ctx.zooms.lowerBound]
        let classes = (lo...hi).map { z -> String? in
            let s = styles[z - ctx.zooms.lowerBound]
            return (!s.exclude && s.isVisible(atZoom: z)) ? s.className : nil
        }
        var flags: [[String]] = []
        if let cascade = ctx.clientCascade {
            flags = (lo...hi).map { z in
                cascade.flags(
                    properties: feature.properties, zoom: z, className: classes[z - lo], inside: inside)
            }
            if flags.allSatisfy(\.isEmpty) { flags = [] }
        }
        let labels = (lo...hi).map { z in styles[z - ctx.zooms.lowerBound].label != nil }
        if !failures.isEmpty {
            warnings.append(
                FeatureIssue(
                    code: .ancestorLookupFailed,
                    message: "descendant selectors treated as not inside: " + failures.joined(separator: "; ")))
        }
        return StyledFeature(
            layer: top.layer, keep: top.keep, zooms: lo...hi, classes: classes, flags: flags,
            labelled: labels.contains(true) ? labels : [], maxPoints: top.maxPoints, coalesce: top.coalesce,
            thinning: top.thinning, identity: top.identity)
    }

    private func index(_ id: Int, context: LayerContext) -> Result<PolygonIndex, GeometryError>? {
        if let i = indexes[id] { return i }
        guard let polys = context.ancestors[id] else { return nil }
        let built = Result { () throws(GeometryError) -> PolygonIndex in
            try PolygonIndex(engine: engine, polygons: polys.geometries)
        }
        indexes[id] = built
        return built
    }
}
