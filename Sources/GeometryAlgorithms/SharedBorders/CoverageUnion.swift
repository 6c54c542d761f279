/// The union of polygons that share borders without overlapping (a coverage: forest stands, parcels), by cancelling
/// the edges they share: what coalescing a thinned feature into its neighbour needs (`--coalesce`).
///
/// Neighbours of a coverage, after shared-border simplification, walk their common border along the same vertices
/// in opposite directions (MVT exteriors are clockwise on screen, so an edge `a → b` of one is `b → a` of the
/// other). The union's boundary is what is left when such pairs are removed:
/// 1. T-junctions become vertices of every ring that passes them (`JunctionNoding`), so partly shared edges cancel.
/// 2. Each directed edge cancels one reversed copy of itself; an edge left twice in the same direction means two
///    inputs overlap: no union (nil).
/// 3. The edges left are chained into rings (at a vertex with several ways on, the smallest), rings lose the
///    vertices that add no area (`GridRingCleaner`: the ends of the cancelled border), and each hole (negative
///    area) goes to the smallest exterior around it.
///
/// Cost O(n) expected in the number of vertices, plus the hole search (bounding boxes first). The result is not
/// checked here: the caller tests it with `Quantizer.isValidOnGrid` (polygons that only touch at a corner, or
/// whose borders differ, give rings that touch or cross, and the caller keeps its inputs apart).
public enum CoverageUnion {
    /// The union of `polygons` (each `[exterior, holes…]`, open rings, exteriors with positive
    /// `doubledSignedArea`), as polygons in the same form; nil when two inputs run along an edge in the same
    /// direction (they overlap) or nothing with an area is left.
    public static func union(_ polygons: [[[TilePoint]]]) -> [[[TilePoint]]]? {
        var rings: [[TilePoint]] = []
        for polygon in polygons {
            for ring in polygon where ring.count >= 3 { rings.append(ring) }
        }
        _ = JunctionNoding.insertJunctions(&rings)
        guard let edges = uncancelledEdges(rings) else { return nil }
        let chained = chain(edges).map(GridRingCleaner.cleaned).filter { $0.count >= 3 }
        var exteriors: [(ring: [TilePoint], area: Int128, box: GridBox)] = []
        var holes: [[TilePoint]] = []
        for ring in chained {
            let area = doubledSignedArea(ring)
            if area > 0 {
                exteriors.append((ring, area, GridBox(ring)))
            } else if area < 0 {
                holes.append(ring)
            }
        }
        guard !exteriors.isEmpty else { return nil }
        // Smallest exteriors first, so the first one around a hole is its own.
        let order = exteriors.indices.sorted { (exteriors[$0].area, $0) < (exteriors[$1].area, $1) }
        var out = exteriors.map { [$0.ring] }
        for hole in holes {
            let box = GridBox(hole)
            let owner = order.first { e in
                exteriors[e].box.contains(box)
                    && hole.contains { RingValidator.locate($0, in: exteriors[e].ring) == .inside }
            }
            // A hole with no exterior around it cannot come from valid input: no union.
            guard let owner else { return nil }
            out[owner].append(hole)
        }
        return out
    }

    /// A directed edge.
    private struct Edge: Comparable {
        var a: TilePoint
        var b: TilePoint
        static func < (l: Edge, r: Edge) -> Bool {
            (l.a.x, l.a.y, l.b.x, l.b.y) < (r.a.x, r.a.y, r.b.x, r.b.y)
        }
    }

    /// The edges of `rings` left after cancelling reversed pairs, sorted; nil when one is left twice. Points and
    /// undirected edges go through `PointTable` (not `Dictionary`: SipHash on every edge was half the union's
    /// time); each edge keeps its net count in its lower-to-higher id direction.
    private static func uncancelledEdges(_ rings: [[TilePoint]]) -> [Edge]? {
        let total = rings.reduce(0) { $0 + $1.count }
        var points = PointTable(capacity: total)
        var edges = PointTable(capacity: total)
        var net: [Int32] = []
        var ends: [(low: TilePoint, high: TilePoint)] = []
        var ids: [Int32] = []
        for ring in rings {
            ids.removeAll(keepingCapacity: true)
            for p in ring { ids.append(points.insert(PointTable.key(p)).id) }
            let n = ring.count
            for i in 0..<n {
                let j = i + 1 == n ? 0 : i + 1
                let (a, b) = (ids[i], ids[j])
                guard a != b else { continue }
                let (slot, new) = edges.insert(PointTable.key(min(a, b), max(a, b)))
                if new {
                    net.append(0)
                    ends.append(a < b ? (ring[i], ring[j]) : (ring[j], ring[i]))
                }
                net[Int(slot)] += a < b ? 1 : -1
            }
        }
        var left: [Edge] = []
        for (k, n) in net.enumerated() where n != 0 {
            guard abs(n) == 1 else { return nil }
            left.append(n > 0 ? Edge(a: ends[k].low, b: ends[k].high) : Edge(a: ends[k].high, b: ends[k].low))
        }
        return left.sorted()
    }

    /// Chains sorted directed edges (each vertex with as many edges in as out) into closed rings, open form.
    private static func chain(_ edges: [Edge]) -> [[TilePoint]] {
        // Outgoing edges per start point, in sorted order (the edges are sorted by start point first).
        var starts = PointTable(capacity: edges.count)
        var first: [Int] = []
        for (i, e) in edges.enumerated() where starts.insert(PointTable.key(e.a)).inserted { first.append(i) }
        var used = [Bool](repeating: false, count: edges.count)
        var rings: [[TilePoint]] = []
        for start in edges.indices where !used[start] {
            var ring: [TilePoint] = []
            var i = start
            while true {
                used[i] = true
                ring.append(edges[i].a)
                let next = edges[i].b
                if next == edges[start].a { break }
                // The first unused edge leaving `next`.
                guard let id = starts.id(PointTable.key(next)) else { break }
                var j = first[Int(id)]
                while j < edges.count, edges[j].a == next, used[j] { j += 1 }
                guard j < edges.count, edges[j].a == next else { break }
                i = j
            }
            rings.append(ring)
        }
        return rings
    }
}
