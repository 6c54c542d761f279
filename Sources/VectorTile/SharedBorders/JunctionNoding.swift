/// Step 1 of shared-border simplification: T-junctions become vertices of both rings.
///
/// Where a vertex of one ring lies exactly inside an edge of another (a neighbour's border ends or bends on a
/// straight edge, or partly collinear edges), the vertex is inserted into that edge. The shape is unchanged, but
/// afterwards both rings have the point, it becomes a node, and the stretch they share becomes one arc.
enum JunctionNoding {
    /// Inserts, into every ring edge, the ring vertices lying strictly inside it; returns the number inserted.
    ///
    /// Cost: one grid of the distinct vertices, one query per edge (O(n) expected).
    static func insertJunctions(_ rings: inout [[TilePoint]]) -> Int {
        var index: [TilePoint: Int32] = [:]
        var vertices: [TilePoint] = []
        var edges: [GridBox] = []
        for ring in rings where ring.count >= 2 {
            for (i, p) in ring.enumerated() {
                if index[p] == nil {
                    index[p] = Int32(vertices.count)
                    vertices.append(p)
                }
                edges.append(GridBox(p, ring[i + 1 == ring.count ? 0 : i + 1]))
            }
        }
        guard !vertices.isEmpty else { return 0 }
        var grid = CellGrid(cell: CellGrid.cellSize(boxes: [], queries: edges))
        for (i, p) in vertices.enumerated() { grid.insert(Int32(i), box: GridBox(point: p)) }

        var inserted = 0
        for r in rings.indices where rings[r].count >= 2 {
            let ring = rings[r]
            var out: [TilePoint] = []
            var changed = false
            for i in ring.indices {
                let a = ring[i]
                let b = ring[i + 1 == ring.count ? 0 : i + 1]
                out.append(a)
                var on: [TilePoint] = []
                grid.forEachCell(in: GridBox(a, b)) { _, items in
                    for v in items {
                        let p = vertices[Int(v)]
                        if p != a, p != b, RingValidator.orientation(a, b, p) == 0, RingValidator.onSegment(a, b, p) {
                            on.append(p)
                        }
                    }
                }
                guard !on.isEmpty else { continue }
                // Along the edge from a, by squared distance (exact in Int64 for Int32 coordinates).
                func d2(_ p: TilePoint) -> Int64 {
                    let dx = Int64(p.x) - Int64(a.x), dy = Int64(p.y) - Int64(a.y)
                    return dx * dx + dy * dy
                }
                on.sort { d2($0) < d2($1) }
                for p in on where out.last != p {
                    out.append(p)
                    inserted += 1
                }
                changed = true
            }
            if changed { rings[r] = out }
        }
        return inserted
    }
}
