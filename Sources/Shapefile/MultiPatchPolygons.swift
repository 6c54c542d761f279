import GeometryAlgorithms
import KartpackCore

/// MultiPatch parts read as polygons, the way GDAL reads them (`OGRCreateFromMultiPatch`), so that a 3D surface
/// becomes its 2D footprint:
///
/// - a triangle strip (part type 0) gives one triangle per vertex after the second: (i, i+1, i+2);
/// - a triangle fan (1) gives (first, i+1, i+2);
/// - a triangles part (6) gives one triangle per three vertices;
/// - an outer ring (2) or first ring (4) starts a polygon; inner rings (3) and rings (5) join the current one (or
///   start one when there is none);
/// - other part types are ignored (and reported).
///
/// Each polygon then goes through `PolygonAssembler` on its own (closing, duplicate points, slivers — walls seen
/// from above have no area and are dropped), and the results are one multipolygon.
enum MultiPatchPolygons {
    /// The polygons of one record: `xy` its vertices, `parts` their ranges and `types` the part types.
    static func assemble(xy: [Double], parts: [Range<Int>], types: [Int32]) -> GeometryAssembly {
        var groups: [[[Double]]] = []  // polygons, each a list of rings as flat x, y
        var open: [[Double]]?
        var ignored = 0
        func ring(_ indices: [Int]) -> [Double] { indices.flatMap { [xy[2 * $0], xy[2 * $0 + 1]] } }
        func flush() {
            if let o = open { groups.append(o) }
            open = nil
        }
        for (p, r) in parts.enumerated() {
            let type = p < types.count ? types[p] : -1
            switch type {
            case 0, 1, 6:
                flush()
                let n = r.count
                var i = 0
                while i + 2 < n {
                    let a = type == 1 ? r.lowerBound : r.lowerBound + i
                    groups.append([ring([a, r.lowerBound + i + 1, r.lowerBound + i + 2, a])])
                    i += type == 6 ? 3 : 1
                }
            case 2, 3, 4, 5:
                if type == 2 || type == 4 { flush() }
                open = (open ?? []) + [ring(Array(r))]
            default:
                ignored += 1
            }
        }
        flush()
        var out = Geometry(kind: .multiPolygon, xy: [], partStarts: [], polygonStarts: [])
        var repairs: [GeometryRepair] = []
        var skipped: (ReasonCode, String)?
        for rings in groups {
            var flat: [Double] = []
            var ranges: [Range<Int>] = []
            for r in rings {
                ranges.append(flat.count / 2..<(flat.count + r.count) / 2)
                flat += r
            }
            switch PolygonAssembler.assemble(xy: flat, parts: ranges) {
            case .skipped(let code, let message):
                skipped = skipped ?? (code, message)
                // A triangle or ring group with nothing left: say which repair removed it.
                let first = rings.first ?? []
                let distinct = Set(stride(from: 0, to: first.count, by: 2).map { [first[$0], first[$0 + 1]] }).count
                let fix =
                    distinct < 3
                    ? GeometryRepair(code: .droppedRing, message: "dropped MultiPatch ring(s) of fewer than 3 points")
                    : GeometryRepair(code: .droppedSliver, message: "dropped MultiPatch ring(s) of zero area")
                if !repairs.contains(where: { $0.code == fix.code }) { repairs.append(fix) }
            case .built(let g, let fixes):
                let points = Int32(out.xy.count / 2)
                let partBase = Int32(out.partStarts.count)
                out.xy += g.xy
                out.partStarts += g.partStarts.map { $0 + points }
                out.polygonStarts += g.polygonStarts.map { $0 + partBase }
                for f in fixes where !repairs.contains(where: { $0.code == f.code }) { repairs.append(f) }
            }
        }
        guard !out.polygonStarts.isEmpty else {
            if let (code, message) = skipped { return .skipped(code: code, message: message) }
            return .skipped(code: .emptyGeometry, message: "no MultiPatch part gives a polygon")
        }
        if out.polygonStarts.count == 1 { out.kind = .polygon }
        repairs.insert(
            GeometryRepair(
                code: .multipatchAsPolygons,
                message: "MultiPatch read as \(out.polygonStarts.count) polygon(s) (\(groups.count) triangle(s) or "
                    + "ring group(s)\(ignored > 0 ? "; \(ignored) part(s) of unknown type ignored" : ""))"),
            at: 0)
        return .built(out, repairs)
    }
}
