/// Step 1 of shared-border simplification: T-junctions become vertices of both rings.
///
/// Where a vertex of one ring lies exactly inside an edge of another (a neighbour's border ends or bends on a
/// straight edge, or partly collinear edges), the vertex is inserted into that edge. The shape is unchanged, but
/// afterwards both rings have the point, it becomes a node, and the stretch they share becomes one arc.
enum JunctionNoding {
    /// Point ids of ring vertices: `ids` holds, ring after ring, one id per vertex of every ring of at least two
    /// points (shorter rings have none), equal points having equal ids, numbered `0..<count` in first-seen order.
    struct VertexIds {
        var ids: [Int32] = []
        var count = 0
        /// The id of each point.
        var points: PointTable

        /// The ids of `rings`' vertices.
        init(_ rings: [[TilePoint]]) {
            let total = rings.reduce(0) { $0 + $1.count }
            points = PointTable(capacity: total)
            ids.reserveCapacity(total)
            for ring in rings where ring.count >= 2 {
                for p in ring { ids.append(points.insert(PointTable.key(p)).id) }
            }
            count = points.count
        }
    }

    /// Inserts, into every ring edge, the ring vertices lying strictly inside it; returns the number inserted.
    static func insertJunctions(_ rings: inout [[TilePoint]]) -> Int {
        var ids = VertexIds(rings)
        return insertJunctions(&rings, ids: &ids)
    }

    /// Inserts, into every ring edge, the ring vertices lying strictly inside it; returns the number inserted.
    ///
    /// Only edges used by one ring side are searched, and only for end points of such edges: where a vertex lies
    /// inside another ring's edge without overlapping rings, that edge has no ring on its other side at that
    /// stretch, and neither do some of the vertex's own edges. In a conforming coverage these are just its outline
    /// and the clip edges, so the search is small; it costs one hash of every edge plus a grid (O(n) expected).
    /// `ids` are `rings`' vertex ids (`VertexIds`), kept up to date: an inserted point is a vertex already, so the
    /// ids stay those of a `VertexIds` of the new rings (up to numbering), and the arc graph need not hash again.
    /// `latticeFactor` (tests): lattice points looked up per query and candidate at most, instead of the grid.
    /// `clip`: the rectangle the rings were clipped to; an edge along one of its lines with more than `lineRun`
    /// lattice points looks its junctions up in the sorted candidates on that line (`LineCandidates`) instead of
    /// point by point.
    static func insertJunctions(
        _ rings: inout [[TilePoint]], ids: inout VertexIds, clip: TileRect? = nil, latticeFactor: Int = 4,
        lineRun: Int = 16
    ) -> Int {
        let total = ids.ids.count
        let vertexIds = ids.ids
        // Undirected edge uses, once or more (`once`). An edge with an end that occurs once in all rings is used
        // where that occurrence's ring runs to the other end: once, or twice when it turns back there. Only edges
        // between points occurring more than once (shared borders) are hashed.
        var occurrences = [UInt8](repeating: 0, count: ids.count)
        for id in vertexIds where occurrences[Int(id)] < 2 { occurrences[Int(id)] += 1 }
        var edgeTable = PointTable(capacity: 16)
        var uses: [UInt8] = []
        var edgeSlot = [Int32](repeating: 0, count: total)  // ≥ 0: the hashed edge; -1: used once; -2: more
        var base = 0
        for ring in rings where ring.count >= 2 {
            let n = ring.count
            for i in 0..<n {
                let j = i + 1 == n ? 0 : i + 1
                let a = vertexIds[base + i], b = vertexIds[base + j]
                if occurrences[Int(a)] == 1 {
                    edgeSlot[base + i] = vertexIds[base + (i == 0 ? n - 1 : i - 1)] == b ? -2 : -1
                } else if occurrences[Int(b)] == 1 {
                    edgeSlot[base + i] = vertexIds[base + (j + 1 == n ? 0 : j + 1)] == a ? -2 : -1
                } else {
                    if edgeTable.count == 0 { edgeTable = PointTable(capacity: total) }
                    let (slot, new) = edgeTable.insert(PointTable.key(min(a, b), max(a, b)))
                    if new { uses.append(0) }
                    uses[Int(slot)] = uses[Int(slot)] &+ (uses[Int(slot)] < 2 ? 1 : 0)
                    edgeSlot[base + i] = slot
                }
            }
            base += n
        }
        func usedOnce(_ k: Int) -> Bool {
            let slot = edgeSlot[k]
            return slot == -1 || (slot >= 0 && uses[Int(slot)] == 1)
        }
        var once = [Bool](repeating: false, count: total)
        for k in 0..<total where usedOnce(k) { once[k] = true }
        let lines = clip.map { LineCandidates(clip: $0) }
        let found = Self.junctions(
            rings, ids: ids, once: once, latticeFactor: latticeFactor, lines: lines, lineRun: lineRun)
        guard !found.isEmpty else { return 0 }
        var inserted = 0
        var newIds: [Int32] = []
        newIds.reserveCapacity(total + found.count)
        var copied = 0  // rings whose ids are in `newIds`
        var idBase = 0  // start of ring `copied` in `vertexIds`
        func copyIds(upTo end: Int) {
            while copied < end {
                let n = rings[copied].count
                if n >= 2 {
                    newIds.append(contentsOf: vertexIds[idBase..<(idBase + n)])
                    idBase += n
                }
                copied += 1
            }
        }
        var f = 0
        while f < found.count {
            let r = found[f].ring
            copyIds(upTo: r)
            let ring = rings[r]
            let rid = vertexIds[idBase..<(idBase + ring.count)]
            idBase += ring.count
            copied += 1
            var out: [TilePoint] = []
            out.reserveCapacity(ring.count + 4)
            var next = 0  // next ring vertex to copy
            while f < found.count, found[f].ring == r {
                let i = found[f].index
                out.append(contentsOf: ring[next...i])
                newIds.append(contentsOf: rid[(rid.startIndex + next)...(rid.startIndex + i)])
                next = i + 1
                var on: [(point: TilePoint, id: Int32)] = []
                while f < found.count, found[f].ring == r, found[f].index == i {
                    on.append((found[f].point, found[f].id))
                    f += 1
                }
                // Along the edge from its start: on a line, the L1 distance from `a` grows with the Euclidean one
                // (equal distances are the same point, with the same id).
                let a = ring[i]
                func d1(_ p: TilePoint) -> Int64 { abs(Int64(p.x) - Int64(a.x)) + abs(Int64(p.y) - Int64(a.y)) }
                on.sort { d1($0.point) < d1($1.point) }
                for (p, id) in on where out.last != p {
                    out.append(p)
                    newIds.append(id)
                    inserted += 1
                }
            }
            if next < ring.count {
                out.append(contentsOf: ring[next...])
                newIds.append(contentsOf: rid[(rid.startIndex + next)...])
            }
            rings[r] = out
        }
        copyIds(upTo: rings.count)
        ids.ids = newIds
        return inserted
    }

    /// The junctions `insertJunctions` inserts: the candidates (ends of the edges used once, `once[k]` for flat
    /// vertex index k) strictly inside an edge used once, in ring order and edge order. Apart from
    /// `insertJunctions`, whose edge hashing the optimizer then inlines as before.
    /// An edge along a line of `lines`' clip rectangle with more than `lineRun` lattice points (the long clip edges
    /// of a coastline's pieces) is not counted in the lattice budget: on the lattice path its junctions come from
    /// the candidates on that line.
    private static func junctions(
        _ rings: [[TilePoint]], ids: VertexIds, once: [Bool], latticeFactor: Int, lines: LineCandidates?,
        lineRun: Int
    ) -> [(ring: Int, index: Int, point: TilePoint, id: Int32)] {
        var lines = lines
        let vertexIds = ids.ids
        var base = 0
        // Candidates: end points of edges used once; queries: those edges (with their lattice steps).
        var isCandidate = [Bool](repeating: false, count: ids.count)
        var candidateCount = 0
        var queryEdge: [(ring: Int, index: Int)] = []
        var querySteps: [Int32] = []
        // Sized once (on coastlines every edge is a query and every vertex a candidate).
        var onceCount = 0
        for k in once.indices where once[k] { onceCount += 1 }
        queryEdge.reserveCapacity(onceCount)
        querySteps.reserveCapacity(onceCount)
        // The points strictly inside an edge on the grid are its lattice points: `g - 1` of them, g the gcd of its
        // sides (none on most edges of an unsimplified, quantized outline). When they are few against the grid's
        // cost, each is looked up among the candidates instead.
        var lattice = 0
        var lineEdges = 0  // edges along a clip line with more than `lineRun` lattice points (steps stored negated)
        base = 0
        for (r, ring) in rings.enumerated() where ring.count >= 2 {
            let n = ring.count
            for i in 0..<n where once[base + i] {
                let j = i + 1 == n ? 0 : i + 1
                // The edge's two ends (no array per edge).
                let vi = Int(vertexIds[base + i]), vj = Int(vertexIds[base + j])
                if !isCandidate[vi] {
                    isCandidate[vi] = true
                    candidateCount += 1
                    lines?.add(ring[i], id: Int32(vi))
                }
                if !isCandidate[vj] {
                    isCandidate[vj] = true
                    candidateCount += 1
                    lines?.add(ring[j], id: Int32(vj))
                }
                let g = Self.latticeSteps(ring[i], ring[j])
                queryEdge.append((r, i))
                if g - 1 > lineRun && lines?.holds(ring[i], ring[j]) == true {
                    lineEdges += 1
                    querySteps.append(Int32(truncatingIfNeeded: -g))
                } else {
                    lattice += g - 1
                    querySteps.append(Int32(truncatingIfNeeded: g))
                }
            }
            base += n
        }
        guard candidateCount > 0 else { return [] }
        // Junctions per edge, grouped by ring in ring order.
        var found: [(ring: Int, index: Int, point: TilePoint, id: Int32)] = []
        if lattice <= latticeFactor * (candidateCount + queryEdge.count) {
            if lineEdges > 0 { lines?.sort() }
            for (q, (r, i)) in queryEdge.enumerated() {
                let g = Int(querySteps[q])
                guard g > 1 || g < 0 else { continue }
                let a = rings[r][i], b = rings[r][i + 1 == rings[r].count ? 0 : i + 1]
                if g < 0, let lines {
                    lines.forEachInside(a, b) { p, id in found.append((r, i, p, id)) }
                    continue
                }
                let sx = (Int(b.x) - Int(a.x)) / g, sy = (Int(b.y) - Int(a.y)) / g
                for t in 1..<g {
                    // Between a and b: in range.
                    let p = TilePoint(Int32(Int(a.x) + t * sx), Int32(Int(a.y) + t * sy))
                    if let id = ids.points.id(PointTable.key(p)), isCandidate[Int(id)] { found.append((r, i, p, id)) }
                }
            }
        } else {
            // The candidates in first-seen order along the queries, as points (boxes) with their ids.
            var candidates: [GridBox] = []
            var candidateIds: [Int32] = []
            candidates.reserveCapacity(candidateCount)
            candidateIds.reserveCapacity(candidateCount)
            var filed = [Bool](repeating: false, count: ids.count)
            var queries: [GridBox] = []
            queries.reserveCapacity(queryEdge.count)
            base = 0
            for ring in rings where ring.count >= 2 {
                let n = ring.count
                for i in 0..<n where once[base + i] {
                    let j = i + 1 == n ? 0 : i + 1
                    // The edge's two ends, in this order (no array per edge).
                    for k in i...(i + 1) {
                        let v = k == i ? i : j
                        guard !filed[Int(vertexIds[base + v])] else { continue }
                        filed[Int(vertexIds[base + v])] = true
                        candidates.append(GridBox(point: ring[v]))
                        candidateIds.append(vertexIds[base + v])
                    }
                    queries.append(GridBox(ring[i], ring[j]))
                }
                base += n
            }
            let grid = CellGrid(boxes: candidates, queries: queries)
            for (q, box) in queries.enumerated() {
                let (r, i) = queryEdge[q]
                let a = rings[r][i], b = rings[r][i + 1 == rings[r].count ? 0 : i + 1]
                grid.forEachCell(in: box) { _, items in
                    for v in items {
                        let p = TilePoint(candidates[Int(v)].minX, candidates[Int(v)].minY)
                        guard box.contains(p), p != a, p != b else { continue }
                        if RingValidator.orientation(a, b, p) == 0 { found.append((r, i, p, candidateIds[Int(v)])) }
                    }
                }
            }
        }
        return found
    }

    /// The gcd of the edge's sides: the edge passes through `g + 1` grid points, its ends included (1 for a point).
    static func latticeSteps(_ a: TilePoint, _ b: TilePoint) -> Int {
        var x = abs(Int(b.x) - Int(a.x)), y = abs(Int(b.y) - Int(a.y))
        if x <= 1 || y <= 1 { return max(1, x == 1 || y == 1 ? 1 : x + y) }
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}
