import GeometryAlgorithms
import GeometryOps
import KartpackCore
import VectorTile

/// The grid repair of the pieces `TileStage` left broken for the shared-border pass (`TilePiece.needsRepair`, issue
/// 34): with shared borders, `TileStage` does not simplify polygons, so rounding whole coastlines to the grid at
/// low zooms folds them onto themselves, and GEOS (MakeValid, setPrecision) on those unsimplified pieces was the
/// largest single cost of the quality defaults on shorelines. Such a piece now goes through the pass as it is
/// (its crossings kept, `SharedBorderSimplifier`), and what the pass made of it is repaired here, on a fraction of
/// the vertices: nothing to do when simplification removed the defect, else the grid cleaner, rings touching
/// themselves at a repeated vertex cut into loops in Swift (`TileStage.pinchedLoops`), and GEOS for the rest.
///
/// What the repair splits off would have been rings of their own had it happened before the pass, and the pass
/// leaves out the rings Douglas–Peucker collapses (`CollapsedRings`): `leaveOutIslets` applies the same rule to
/// the repaired pieces' polygons, so a coast keeps no more sub-pixel islets than when it was repaired first.
extension SharedBorderPass {
    /// Repairs the pieces `late[k]` of one layer in one tile in place (`polygons[k]`: piece `k`'s rings after the
    /// pass; `input[k]`: before it) and leaves out the islets the pass would have left out; returns how many
    /// polygons it left out. A piece whose repaired rings are empty is repaired again from its input.
    func repairLate(
        _ polygons: inout [[[[TilePoint]]]], late: [Bool], input: [[[[TilePoint]]]], keepClear: [TileRect]
    ) throws(GeometryError) -> Int {
        var made: GeometryEngine?
        func engine() -> GeometryEngine {
            if let made { return made }
            let e = GeometryEngine()
            made = e
            return e
        }
        var repaired: [Int] = []
        for k in polygons.indices where late[k] {
            var fixed = try Self.lateRepaired(polygons[k], engine: engine)
            if fixed.isEmpty && polygons[k] != input[k] { fixed = try Self.lateRepaired(input[k], engine: engine) }
            polygons[k] = fixed
            repaired.append(k)
        }
        return leaveOutIslets(&polygons, pieces: repaired, keepClear: keepClear)
    }

    /// `polygons` valid on the grid (`Quantizer.isValidOnGrid`), exteriors of positive and holes of negative signed
    /// area; empty when nothing is left. GEOS (`engine()`) only when cleaning and cutting pinched rings do not do.
    static func lateRepaired(
        _ polygons: [[[TilePoint]]], engine: () -> GeometryEngine
    ) throws(GeometryError) -> [[[TilePoint]]] {
        if CancellationFlag.process.isCancelled { throw .interrupted }
        if Quantizer.isValidOnGrid(polygons) { return oriented(polygons) }
        let cleaned = TileStage.cleaned(polygons)
        guard !cleaned.isEmpty else { return [] }
        if try TileStage.isValidExactly(cleaned) { return oriented(cleaned) }
        if let loops = try TileStage.pinchedLoops(cleaned, engine: engine()) { return loops }
        guard let repaired = try TileStage.repairOnGrid(cleaned, engine: engine()) else { return [] }
        return Quantizer().quantizePolygons(repaired).polygons
    }

    /// Each exterior with positive, each hole with negative signed area (reversed where not), as the quantizer
    /// gives them and `PieceGeometry.init(polygons:)` tells them apart.
    static func oriented(_ polygons: [[[TilePoint]]]) -> [[[TilePoint]]] {
        polygons.map { rings in
            rings.enumerated().map { r, ring in
                let area = doubledSignedArea(ring)
                return (r == 0 ? area < 0 : area > 0) ? ring.reversed() : ring
            }
        }
    }

    /// Leaves out of the pieces `repaired` (indices into `polygons`, one layer in one tile) each ring the pass's
    /// collapsed-ring rule (`CollapsedRings`) would have left out as a ring of its own; returns how many. A ring
    /// goes when
    /// 1. it is a hole, or the exterior of a polygon without holes; Douglas–Peucker as the pass runs it collapses
    ///    it (`collapses`: a ring without nodes is one closed arc from its least point); it does not reach the clip
    ///    rectangle (a pinched inlet cut off is a hole, a pinched headland a polygon of its own);
    /// 2. no vertex of any other ring of the layer lies in its bounding box (edges included), except its own
    ///    vertices where another ring of its piece that leaves the box touches it (the ring it was cut from); a
    ///    ring of another piece blocks it wherever it meets the box, so no border it shares can open; nor does its
    ///    box meet an area to keep clear (a small feature's square);
    /// 3. its piece keeps a polygon: when every exterior would go, the largest (by area, then by the smaller least
    ///    point) stays.
    func leaveOutIslets(_ polygons: inout [[[[TilePoint]]]], pieces repaired: [Int], keepClear: [TileRect]) -> Int {
        guard tolerance > 0, tolerance.isFinite else { return 0 }
        var candidates: [(piece: Int, polygon: Int, ring: Int, box: TileRect)] = []
        for k in repaired {
            for (j, rings) in polygons[k].enumerated() {
                for (r, ring) in rings.enumerated() where r > 0 || rings.count == 1 {
                    guard Self.collapses(ring, tolerance: tolerance), !ring.contains(where: clip.isOnBoundary) else {
                        continue
                    }
                    candidates.append((k, j, r, Self.box(ring)))
                }
            }
        }
        guard !candidates.isEmpty else { return 0 }
        var blocked = candidates.map { c in keepClear.contains { Self.intersect(c.box, $0) } }
        var all = candidates[0].box
        for c in candidates.dropFirst() { all = Self.union(all, c.box) }
        var touched: [Int] = []
        for (k, piece) in polygons.enumerated() {
            for (j, rings) in piece.enumerated() {
                for (r, ring) in rings.enumerated() {
                    touched.removeAll(keepingCapacity: true)
                    for p in ring where Self.contains(all, p) {
                        for c in candidates.indices where !blocked[c] && Self.contains(candidates[c].box, p) {
                            let cand = candidates[c]
                            guard cand.piece != k || cand.polygon != j || cand.ring != r else { continue }
                            if cand.piece == k && polygons[k][cand.polygon][cand.ring].contains(p) {
                                touched.append(c)
                            } else {
                                blocked[c] = true
                            }
                        }
                    }
                    // Meeting it only at its vertices: from outside when the ring leaves the box.
                    for c in Set(touched) where !blocked[c] && ring.allSatisfy({ Self.contains(candidates[c].box, $0) })
                    {
                        blocked[c] = true
                    }
                }
            }
        }
        var holes: [Int: [Int: [Int]]] = [:]
        var exteriors: [Int: [Int]] = [:]
        for (c, cand) in candidates.enumerated() where !blocked[c] {
            if cand.ring > 0 {
                holes[cand.piece, default: [:]][cand.polygon, default: []].append(cand.ring)
            } else {
                exteriors[cand.piece, default: []].append(cand.polygon)
            }
        }
        var count = 0
        for (k, byPolygon) in holes {
            for (j, rs) in byPolygon {
                for r in rs.sorted(by: >) { polygons[k][j].remove(at: r) }
                count += rs.count
            }
        }
        for (k, gone) in exteriors.sorted(by: { $0.key < $1.key }) {
            var drop = Set(gone)
            if drop.count == polygons[k].count, let stays = Self.largest(polygons[k]) { drop.remove(stays) }
            for j in drop.sorted(by: >) { polygons[k].remove(at: j) }
            count += drop.count
        }
        return count
    }

    /// Whether the shared-border pass's Douglas–Peucker reduces `ring`, as a closed arc from its least point
    /// (smallest x, then y), to fewer than 3 points: it keeps that point and the one farthest from it, then any
    /// vertex farther than `tolerance` from the chord between them, so the ring collapses when none is.
    static func collapses(_ ring: [TilePoint], tolerance: Double) -> Bool {
        guard ring.count >= 3 else { return true }
        var s = 0
        for i in ring.indices where precedes(ring[i], ring[s]) { s = i }
        let a = ring[s]
        var far = a
        var best = -1.0
        for p in ring {
            let dx = Double(p.x) - Double(a.x), dy = Double(p.y) - Double(a.y)
            if dx * dx + dy * dy > best {
                best = dx * dx + dy * dy
                far = p
            }
        }
        let tol2 = tolerance * tolerance
        return ring.allSatisfy { distance2($0, a, far) <= tol2 }
    }

    /// The index of the largest polygon by exterior area (ties: the smaller least point); nil when none.
    static func largest(_ polygons: [[[TilePoint]]]) -> Int? {
        func least(_ ring: [TilePoint]) -> TilePoint { ring.dropFirst().reduce(ring[0]) { precedes($1, $0) ? $1 : $0 } }
        var best: Int?
        for (j, rings) in polygons.enumerated() where !(rings.first ?? []).isEmpty {
            guard let b = best else {
                best = j
                continue
            }
            let (aj, ab) = (abs(doubledSignedArea(rings[0])), abs(doubledSignedArea(polygons[b][0])))
            if aj > ab || (aj == ab && precedes(least(rings[0]), least(polygons[b][0]))) { best = j }
        }
        return best
    }

    private static func precedes(_ a: TilePoint, _ b: TilePoint) -> Bool { a.x != b.x ? a.x < b.x : a.y < b.y }

    /// Squared distance from `p` to the segment `a`–`b` (as the pass's Douglas–Peucker measures it).
    private static func distance2(_ p: TilePoint, _ a: TilePoint, _ b: TilePoint) -> Double {
        let ax = Double(a.x), ay = Double(a.y)
        let dx = Double(b.x) - ax, dy = Double(b.y) - ay
        let px = Double(p.x) - ax, py = Double(p.y) - ay
        let len2 = dx * dx + dy * dy
        let t = len2 > 0 ? min(1, max(0, (px * dx + py * dy) / len2)) : 0
        let cx = t * dx - px, cy = t * dy - py
        return cx * cx + cy * cy
    }

    private static func box(_ ring: [TilePoint]) -> TileRect {
        var b = TileRect(minX: ring[0].x, minY: ring[0].y, maxX: ring[0].x, maxY: ring[0].y)
        for p in ring { b = union(b, TileRect(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y)) }
        return b
    }

    private static func union(_ a: TileRect, _ b: TileRect) -> TileRect {
        TileRect(
            minX: min(a.minX, b.minX), minY: min(a.minY, b.minY), maxX: max(a.maxX, b.maxX), maxY: max(a.maxY, b.maxY))
    }

    private static func intersect(_ a: TileRect, _ b: TileRect) -> Bool {
        a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY
    }

    private static func contains(_ b: TileRect, _ p: TilePoint) -> Bool {
        b.minX <= p.x && p.x <= b.maxX && b.minY <= p.y && p.y <= b.maxY
    }
}
