/// Step 1 of shared-border simplification: T-junctions become vertices of both rings.
///
/// Where a vertex of one ring lies exactly inside an edge of another (a neighbour's border ends or bends on a
/// straight edge, or partly collinear edges), the vertex is inserted into that edge. The shape is unchanged, but
/// afterwards both rings have the point, it becomes a node, and the stretch they share becomes one arc.
enum JunctionNoding {
    /// Inserts, into every ring edge, the ring vertices lying strictly inside it; returns the number inserted.
    ///
    /// Only edges used by one ring side are searched, and only for end points of such edges: where a vertex lies
    /// inside another ring's edge without overlapping rings, that edge has no ring on its other side at that
    /// stretch, and neither do some of the vertex's own edges. In a conforming coverage these are just its outline
    /// and the clip edges, so the search is small; it costs one hash of every edge plus a grid (O(n) expected).
    static func insertJunctions(_ rings: inout [[TilePoint]]) -> Int {
        let total = rings.reduce(0) { $0 + $1.count }
        var points = PointTable(capacity: total)
        var vertexIds: [Int32] = []
        vertexIds.reserveCapacity(total)
        for ring in rings where ring.count >= 2 {
            for p in ring { vertexIds.append(points.insert(PointTable.key(p)).id) }
        }
        // Undirected edge uses.
        var edgeTable = PointTable(capacity: total)
        var uses: [UInt8] = []
        var edgeSlot: [Int32] = []
        edgeSlot.reserveCapacity(total)
        var base = 0
        for ring in rings where ring.count >= 2 {
            let n = ring.count
            for i in 0..<n {
                let a = vertexIds[base + i], b = vertexIds[base + (i + 1 == n ? 0 : i + 1)]
                let (slot, new) = edgeTable.insert(PointTable.key(min(a, b), max(a, b)))
                if new { uses.append(0) }
                uses[Int(slot)] = uses[Int(slot)] &+ (uses[Int(slot)] < 2 ? 1 : 0)
                edgeSlot.append(slot)
            }
            base += n
        }
        // Candidates: end points of edges used once; queries: those edges.
        var isCandidate = [Bool](repeating: false, count: points.count)
        var candidates: [GridBox] = []
        var queries: [GridBox] = []
        var queryEdge: [(ring: Int, index: Int)] = []
        base = 0
        for (r, ring) in rings.enumerated() where ring.count >= 2 {
            let n = ring.count
            for i in 0..<n where uses[Int(edgeSlot[base + i])] == 1 {
                let j = i + 1 == n ? 0 : i + 1
                // The edge's two ends, in this order (no array per edge).
                for k in i...(i + 1) {
                    let v = k == i ? i : j
                    guard !isCandidate[Int(vertexIds[base + v])] else { continue }
                    isCandidate[Int(vertexIds[base + v])] = true
                    candidates.append(GridBox(point: ring[v]))
                }
                queries.append(GridBox(ring[i], ring[j]))
                queryEdge.append((r, i))
            }
            base += n
        }
        guard !candidates.isEmpty else { return 0 }
        let grid = CellGrid(boxes: candidates, queries: queries)
        // Junctions per edge, grouped by ring in ring order.
        var found: [(ring: Int, index: Int, point: TilePoint)] = []
        for (q, box) in queries.enumerated() {
            let (r, i) = queryEdge[q]
            let a = rings[r][i], b = rings[r][i + 1 == rings[r].count ? 0 : i + 1]
            grid.forEachCell(in: box) { _, items in
                for v in items {
                    let p = TilePoint(candidates[Int(v)].minX, candidates[Int(v)].minY)
                    guard box.contains(p), p != a, p != b else { continue }
                    if RingValidator.orientation(a, b, p) == 0 { found.append((r, i, p)) }
                }
            }
        }
        guard !found.isEmpty else { return 0 }
        var inserted = 0
        var f = 0
        while f < found.count {
            let r = found[f].ring
            let ring = rings[r]
            var out: [TilePoint] = []
            out.reserveCapacity(ring.count + 4)
            var next = 0  // next ring vertex to copy
            while f < found.count, found[f].ring == r {
                let i = found[f].index
                out.append(contentsOf: ring[next...i])
                next = i + 1
                var on: [TilePoint] = []
                while f < found.count, found[f].ring == r, found[f].index == i {
                    on.append(found[f].point)
                    f += 1
                }
                // Along the edge from its start: on a line, the L1 distance from `a` grows with the Euclidean one.
                let a = ring[i]
                func d1(_ p: TilePoint) -> Int64 { abs(Int64(p.x) - Int64(a.x)) + abs(Int64(p.y) - Int64(a.y)) }
                on.sort { d1($0) < d1($1) }
                for p in on where out.last != p {
                    out.append(p)
                    inserted += 1
                }
            }
            if next < ring.count { out.append(contentsOf: ring[next...]) }
            rings[r] = out
        }
        return inserted
    }
}
