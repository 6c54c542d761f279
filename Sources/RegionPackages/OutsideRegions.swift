import GeometryOps
import KartpackCore
import ConvertEngine

/// The features of a region package's sources that lie in no package: their extent touches no region's box, or
/// it does but none of those regions' polygons (plus buffer) touches any of the feature's antimeridian copies.
/// Counted per input as `outside_regions` in the report, so every feature read is accounted for.
package enum OutsideRegions {
    /// Per opened layer of `source`, how many features lie outside every region. `boxed` lists per layer the
    /// features routed to some region (`RegionPackager.route`); each of them is tested exactly (GEOS prepared
    /// intersects) on `threads` threads, each with its own engine. A feature GEOS cannot test is counted as inside
    /// (its regions' builds count what they reject).
    package static func count(_ source: RegionSource, boxed: [[Int]], clips: [SharedPolygons], threads: Int) -> [Int] {
        let layers = source.layers
        var outside = layers.indices.map { layers[$0].features.count - boxed[$0].count }
        let work = boxed.enumerated().flatMap { l, list in list.map { (l, $0) } }
        guard !work.isEmpty else { return outside }
        let polygons = clips.flatMap(\.geometries)
        let chunks = max(1, min(threads, work.count))
        let found = parallelRegions(count: chunks, threads: chunks) { c -> [Int] in
            var counts = Array(repeating: 0, count: layers.count)
            let engine = GeometryEngine()
            guard let index = try? PolygonIndex(engine: engine, polygons: polygons) else { return counts }
            var k = c
            while k < work.count {
                let (l, i) = work[k]
                let copies = Regions.unwrapped(layers[l].features[i].job.feature.geometry)
                let touches = copies.contains { (try? index.intersectsAny($0)) ?? true }
                if !touches { counts[l] += 1 }
                k += chunks
            }
            return counts
        }
        for counts in found {
            for l in counts.indices { outside[l] += counts[l] }
        }
        return outside
    }
}
