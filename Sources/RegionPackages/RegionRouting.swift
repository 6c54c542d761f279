import GeometryOps
import KartpackCore
import ConvertEngine

/// Which features each region of a package run holds: those that share a point with the region's clip polygon
/// (plus buffer), not merely with its box. A region's fingerprint and build see only these, so an edit of a
/// feature rebuilds exactly the regions whose polygons it touches (before or after the edit).
///
/// Each feature's extent first narrows the candidates to the regions whose box it touches (`RegionIndex`); then
/// each of its antimeridian copies is tested against the candidates' polygons (GEOS prepared intersects, the
/// boundary counting as inside) on `threads` threads, each with its own `GeometryEngine`. The clip stage of a
/// region build keeps part of a feature only where it intersects the polygon, so no feature a `convert --clip`
/// run of the region would keep is left out; a feature that only touches the polygon's boundary is routed and
/// then clipped away as `outside_region` (its edits rebuild the region, whose bytes then do not change).
///
/// Where the test could be wrong the feature is routed by its extent, as a superset: a polygon stage 3 had to
/// make valid (GEOS predicates on the raw, invalid rings are not those of the repaired shape) and a geometry GEOS
/// cannot test. The result does not depend on the thread count.
package struct RegionRouting: Sendable {
    /// One polygon of the style's ancestor sets (`Regions.ancestors`): its selector and index in the set.
    package struct AncestorPolygon: Sendable, Hashable, Comparable {
        package var selector: Int
        package var polygon: Int

        package static func < (a: Self, b: Self) -> Bool { (a.selector, a.polygon) < (b.selector, b.polygon) }
    }

    /// Per region, per opened layer of the source (in order), the indexes of the features it holds, ascending.
    package var routed: [[[Int]]]
    /// Per opened layer, the features that share no point with any region's polygon (`outside_regions`). A
    /// feature routed by its extent counts by the exact test; one GEOS cannot test counts as inside.
    package var outside: [Int]
    /// Per region, the ancestor polygons that touch it, sorted: a descendant selector classes a feature by the
    /// ancestor polygon holding a point of its clipped shape, so only these can change a region's classes.
    package var ancestors: [[AncestorPolygon]]

    /// One feature's answer.
    private struct Answer: Sendable {
        var regions: [Int]
        var outside: Bool
    }

    /// Routes every feature of `source` to the regions of `clips` (one polygon each, as `Regions.clipRegion`
    /// makes them).
    package static func route(_ source: RegionSource, clips: [SharedPolygons], threads: Int) -> RegionRouting {
        let layers = source.layers
        let boxes = RegionIndex(clips.map(\.bounds))
        let polygons = clips.map { $0.geometries.first ?? Geometry.polygons([]) }
        var starts: [Int] = [0]
        for layer in layers { starts.append(starts[starts.count - 1] + layer.features.count) }
        let offsets = starts
        let total = offsets[offsets.count - 1]
        let chunks = max(1, min(threads, total))
        let found = parallelRegions(count: chunks, threads: chunks) { c -> [Answer] in
            let engine = GeometryEngine()
            let index = try? PolygonIndex(engine: engine, polygons: polygons)
            var answers: [Answer] = []
            answers.reserveCapacity(total / chunks + 1)
            var l = 0
            var g = c
            while g < total {
                while g >= offsets[l + 1] { l += 1 }
                let feature = layers[l].features[g - offsets[l]]
                answers.append(answer(feature, boxes: boxes, index: index))
                g += chunks
            }
            return answers
        }
        var routed = Array(repeating: Array(repeating: [Int](), count: layers.count), count: clips.count)
        var outside = Array(repeating: 0, count: layers.count)
        var l = 0
        for g in 0..<total {
            while g >= offsets[l + 1] { l += 1 }
            let a = found[g % chunks][g / chunks]
            if a.outside { outside[l] += 1 }
            for r in a.regions { routed[r][l].append(g - offsets[l]) }
        }
        let ancestors = ancestorPolygons(source.regions.ancestors, boxes: boxes, polygons: polygons)
        return RegionRouting(routed: routed, outside: outside, ancestors: ancestors)
    }

    /// The regions one feature is routed to, and whether it lies outside every region's polygon.
    private static func answer(_ f: ProjectedFeature, boxes: RegionIndex, index: PolygonIndex?) -> Answer {
        let candidates = boxes.regions(touching: f.bounds)
        guard !candidates.isEmpty else { return Answer(regions: [], outside: true) }
        guard let index else { return Answer(regions: candidates, outside: false) }
        var hits = Set<Int>()
        do throws(GeometryError) {
            for copy in Regions.unwrapped(f.job.feature.geometry) where copy.bounds != nil {
                hits.formUnion(try index.intersecting(copy))
            }
        } catch {
            return Answer(regions: candidates, outside: false)
        }
        let exact = candidates.filter { hits.contains($0) }
        return Answer(regions: f.madeValid ? candidates : exact, outside: exact.isEmpty)
    }

    /// Per region, the ancestor polygons touching its polygon (by box where GEOS cannot test them).
    private static func ancestorPolygons(
        _ sets: [Int: SharedPolygons], boxes: RegionIndex, polygons: [Geometry]
    ) -> [[AncestorPolygon]] {
        var out = Array(repeating: [AncestorPolygon](), count: polygons.count)
        guard !sets.isEmpty else { return out }
        let engine = GeometryEngine()
        let index = try? PolygonIndex(engine: engine, polygons: polygons)
        for key in sets.keys.sorted() {
            for (j, p) in (sets[key]?.geometries ?? []).enumerated() {
                guard let b = p.bounds else { continue }
                let candidates = boxes.regions(touching: b)
                let exact = (try? index?.intersecting(p)).map { Set($0) }
                for r in candidates where exact?.contains(r) ?? true {
                    out[r].append(AncestorPolygon(selector: key, polygon: j))
                }
            }
        }
        return out
    }
}
