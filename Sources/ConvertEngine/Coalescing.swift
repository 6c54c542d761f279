import GeometryAlgorithms
import VectorTile

/// Coalescing (`--coalesce`, issue 14): a polygon or line piece that thinning leaves out of a tile is merged into a
/// kept neighbour of the same layer in that tile instead of leaving a hole in the mosaic or a gap in the network;
/// the merged feature keeps the kept one's id and attributes (as tippecanoe's `--coalesce-densest-as-needed`).
///
/// - **Neighbours** (`TileNeighbours`, once per tile): polygon pieces that share an edge (an edge `a → b` of one
///   is `b → a` of the other: shared-border simplification makes neighbours walk the same vertices), weighted by
///   the number of shared edges; line pieces that share an end point (weight 1).
/// - **Owners** (`owners`): rounds of a breadth-first search from the kept pieces; in each round every left-out
///   piece next to a piece with an owner takes the owner it shares most edges with (ties: the lower index), so a
///   chain of left-out stands goes to the kept stand it touches through them. Only an owner of the same identity
///   (the sheet's or pipeline's `identity` attributes, e.g. the owner of a property) may take a piece: features
///   that differ there are never merged. Deterministic, per tile.
/// - **Merge** (`merged`): polygons by `CoverageUnion` (the shared edges cancel), kept only when the union is
///   valid on the grid (`Quantizer.isValidOnGrid`); otherwise the left-out pieces stay out (borders that were
///   not shared exactly, e.g. with `--no-shared-borders`). Lines become one multi-line.
///
/// Points are not coalesced (a point merged into another would carry that one's attributes to a new place); they
/// are dropped as without coalescing.
package enum Coalescing {
    /// The neighbours of the pieces of one tile (`run` of a batch), as local indices into the run.
    package struct TileNeighbours: Sendable {
        /// Per local piece index, its neighbours and the weight of each, sorted by neighbour.
        var adjacent: [[(piece: Int32, weight: Int32)]]

        package var isEmpty: Bool { adjacent.allSatisfy(\.isEmpty) }
    }

    /// Most line pieces one end point links (a junction of more lines links each to the first ones only).
    static let maxLinesPerEnd = 8

    /// Finds the neighbours among the polygon and line pieces of one tile, layer by layer, in the layers marked in
    /// `layers` (all when empty).
    static func neighbours(_ run: Range<Int>, pieces: [TilePiece], layers: [Bool] = []) -> TileNeighbours {
        var weights: [Int64: Int32] = [:]
        func link(_ i: Int, _ j: Int) {
            guard i != j else { return }
            let (a, b) = (min(i, j) - run.lowerBound, max(i, j) - run.lowerBound)
            weights[Int64(a) << 32 | Int64(b), default: 0] += 1
        }
        var start = run.lowerBound
        while start < run.upperBound {
            var end = start + 1
            while end < run.upperBound && pieces[end].layer == pieces[start].layer { end += 1 }
            defer { start = end }
            let l = Int(pieces[start].layer)
            guard layers.isEmpty || (l < layers.count && layers[l]) else { continue }
            var edgeOwner: [Edge: Int] = [:]
            // Each polygon piece's edges, listed once for both passes.
            var polygonEdges: [(piece: Int, edges: [Edge])] = []
            var ends: [TilePoint: [Int]] = [:]
            for i in start..<end {
                switch pieces[i].type {
                case .polygon:
                    var edges: [Edge] = []
                    forEachEdge(pieces[i].geometry) { e in
                        edges.append(e)
                        if edgeOwner[e] == nil { edgeOwner[e] = i }
                    }
                    polygonEdges.append((i, edges))
                case .lineString:
                    guard case .lines(let parts) = pieces[i].geometry else { break }
                    parts.forEach { part, _ in
                        guard let a = part.first, let b = part.last else { return }
                        for p in a == b ? [a] : [a, b] where ends[p, default: []].count < maxLinesPerEnd {
                            if ends[p]?.last != i { ends[p, default: []].append(i) }
                        }
                    }
                default:
                    break
                }
            }
            for (i, edges) in polygonEdges {
                for e in edges {
                    if let j = edgeOwner[Edge(a: e.b, b: e.a)], j > i { link(i, j) }
                }
            }
            for (_, lines) in ends.sorted(by: { ($0.key.x, $0.key.y) < ($1.key.x, $1.key.y) }) {
                for (k, i) in lines.enumerated() {
                    for j in lines[(k + 1)...] { link(i, j) }
                }
            }
        }
        var adjacent = [[(piece: Int32, weight: Int32)]](repeating: [], count: run.count)
        for (key, w) in weights {
            let (a, b) = (Int(key >> 32), Int(key & 0xFFFF_FFFF))
            adjacent[a].append((Int32(b), w))
            adjacent[b].append((Int32(a), w))
        }
        for k in adjacent.indices { adjacent[k].sort { $0.piece < $1.piece } }
        return TileNeighbours(adjacent: adjacent)
    }

    /// The owner (local index) of every left-out piece that reaches a kept one through neighbours, in the order
    /// they were reached (nearest first): `isOwner` says which pieces are kept and may take others, `isLeftOut`
    /// which may be merged, `canJoin(piece, owner)` whether a left-out piece may go to that owner (the identity
    /// attributes agree); a piece reaches an owner only through pieces that went to it.
    static func owners(
        _ graph: TileNeighbours, isOwner: (Int) -> Bool, isLeftOut: (Int) -> Bool,
        canJoin: (Int, Int) -> Bool = { _, _ in true }
    ) -> [(piece: Int, owner: Int)] {
        let n = graph.adjacent.count
        var owner = [Int32](repeating: -1, count: n)
        var frontier: [Int] = []
        for k in 0..<n where isOwner(k) {
            owner[k] = Int32(k)
            frontier.append(k)
        }
        var result: [(piece: Int, owner: Int)] = []
        while !frontier.isEmpty {
            // The left-out pieces next to the frontier, each taking the owner it shares most with.
            var candidates: [Int] = []
            for k in frontier {
                for (j, _) in graph.adjacent[k] where owner[Int(j)] < 0 && isLeftOut(Int(j)) {
                    candidates.append(Int(j))
                }
            }
            var next: [Int] = []
            var chosen: [(piece: Int, owner: Int32)] = []
            for j in Set(candidates).sorted() {
                var shared: [Int32: Int32] = [:]
                for (k, w) in graph.adjacent[j] where owner[Int(k)] >= 0 && canJoin(j, Int(owner[Int(k)])) {
                    shared[owner[Int(k)], default: 0] += w
                }
                guard let best = shared.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) }) else { continue }
                chosen.append((j, best.key))
            }
            // Set after the round, so that the order inside a round does not matter.
            for c in chosen {
                owner[c.piece] = c.owner
                result.append((c.piece, Int(c.owner)))
                next.append(c.piece)
            }
            frontier = next
        }
        return result
    }

    /// The geometry of a kept piece with left-out pieces of its type merged into it (`leftOut` nearest first), and
    /// which of them (indices into `leftOut`) were merged; nil when none could be.
    ///
    /// Polygons are merged all at once when their union is valid on the grid; otherwise one at a time in the
    /// given order, each kept only when the union so far stays valid (a piece that would pinch the outline at a
    /// vertex, or whose border is not shared exactly, stays out).
    static func merged(_ kept: TilePiece, with leftOut: [TilePiece]) -> (geometry: PieceGeometry, taken: [Int])? {
        switch kept.type {
        case .polygon:
            let own = kept.geometry.polygons
            let others = leftOut.map { $0.geometry.polygons }
            func validUnion(_ polygons: [[[TilePoint]]]) -> [[[TilePoint]]]? {
                guard let union = CoverageUnion.union(polygons), Quantizer.isValidOnGrid(union) else { return nil }
                return union
            }
            if let union = validUnion(own + others.flatMap { $0 }) {
                let geometry = PieceGeometry(polygons: union)
                return geometry.isEmpty ? nil : (geometry, Array(leftOut.indices))
            }
            var current = own
            var taken: [Int] = []
            for (k, polygons) in others.enumerated() {
                guard let union = validUnion(current + polygons) else { continue }
                current = union
                taken.append(k)
            }
            let geometry = PieceGeometry(polygons: current)
            return taken.isEmpty || geometry.isEmpty ? nil : (geometry, taken)
        case .lineString:
            var parts = kept.geometry.lines
            for p in leftOut { parts += p.geometry.lines }
            let geometry = PieceGeometry(lines: parts)
            return geometry.isEmpty ? nil : (geometry, Array(leftOut.indices))
        default:
            return nil
        }
    }

    /// A directed polygon edge in tile units.
    private struct Edge: Hashable {
        var a: TilePoint
        var b: TilePoint
    }

    /// Calls `body` with every edge of every ring of a polygon piece (rings closed, repeated points skipped).
    private static func forEachEdge(_ geometry: PieceGeometry, _ body: (Edge) -> Void) {
        guard case .polygons(let parts) = geometry else { return }
        parts.forEach { ring, _ in
            guard ring.count >= 2 else { return }
            for k in ring.indices {
                let (a, b) = (ring[k], ring[k + 1 == ring.endIndex ? ring.startIndex : k + 1])
                if a != b { body(Edge(a: a, b: b)) }
            }
        }
    }
}
