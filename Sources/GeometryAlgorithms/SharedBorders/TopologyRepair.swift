/// Step 4 of shared-border simplification: puts removed vertices back into arcs until the simplified arcs keep the
/// input's topology.
///
/// A **span** is the stretch of an arc between two consecutive kept points: the chord replaces the removed
/// vertices. Each round finds every span that
/// 1. belongs to a ring whose simplified outline has fewer than 3 points, zero area or the opposite orientation
///    of its input (the span whose removed vertex lies farthest from its chord, over the ring's arcs);
/// 2. has a chord that crosses, touches or runs along another simplified segment (other than meeting at a shared
///    end point); a pair of two unsimplified input edges is left alone: that crossing was in the input;
/// 3. has a kept point of any arc strictly inside the region between its chord and its removed vertices: that
///    point, and whatever ring it belongs to, would change sides (a small island swallowed by a neighbour).
///
/// and restores, in each, the removed vertex farthest from the chord (after `singleVertexRounds` rounds: all of
/// the span's vertices). Every flagged span gains a vertex and a span without removed vertices is never flagged, so
/// the loop ends; when it does, no check fails, or the failure was in the input. Because vertices go back into the
/// shared arc, the repair is shared by every ring on it. All choices are geometric (distances, then point order),
/// so the result does not depend on the order of features or rings.
struct TopologyRepair {
    let graph: ArcGraph
    var kept: [Bool]
    /// Vertices put back.
    var restored = 0
    /// Rounds run (the last one found nothing).
    var rounds = 0
    /// Rounds that restore one vertex per span before whole spans are restored.
    static let singleVertexRounds = 24
    /// Per point of `graph.points`, the round that put it back (0: kept from the start, or not kept).
    private var pointRound: [Int32]
    /// Per arc, the last round that put a vertex back into it (0: none).
    private var arcRound: [Int32]
    /// The points put back in the last round.
    private var restoredLast: [Int] = []

    /// A simplified segment: kept points `i` and `j` (indices into `graph.points`) of one arc.
    private struct Segment {
        var a: TilePoint
        var b: TilePoint
        var i: Int
        var j: Int
        var box: GridBox
        /// Made by the last round (an end point put back then), or round 1: checked again.
        var fresh: Bool
        /// `j` is its arc's last point (so every kept point is the `a` of a segment, or the `b` of a last one).
        var last: Bool
        var refinable: Bool { j > i + 1 }
    }

    init(graph: ArcGraph, kept: [Bool]) {
        self.graph = graph
        self.kept = kept
        pointRound = [Int32](repeating: 0, count: graph.points.count)
        arcRound = [Int32](repeating: 0, count: graph.arcCount)
    }

    /// The round before the current one: what it changed is all a later round has to check again (round 1, whose
    /// "previous" round is 0, checks everything). A segment, span or ring the last round left as it was passed
    /// every check then (else it was refined), so it can only fail now against something that changed.
    private var previous: Int32 { Int32(rounds - 1) }

    mutating func run() {
        // One buffer for every round's segments: no fresh (mmapped, page-faulted) array per round.
        var segments: [Segment] = []
        while true {
            rounds += 1
            currentSegments(into: &segments)
            var flagged = ringFailures()
            // One grid of the simplified segments serves both checks (its segments' ends are the kept points).
            if segments.contains(where: \.fresh) {
                let grid = CellGrid(boxes: segments.map(\.box))
                flagged += crossings(segments, grid: grid)
                flagged += jumps(segments, grid: grid)
            } else {
                flagged += jumps(segments, grid: nil)
            }
            guard !flagged.isEmpty else { return }
            flagged.sort { $0.i < $1.i }
            restoredLast.removeAll(keepingCapacity: true)
            var last = -1
            for s in flagged where s.i != last {
                last = s.i
                refine(i: s.i, j: s.j, whole: rounds > Self.singleVertexRounds)
            }
        }
    }

    /// The simplified outline of a ring, starting at its first arc's first point, in the ring's direction.
    func outline(_ uses: ArraySlice<ArcUse>) -> [TilePoint] {
        var out: [TilePoint] = []
        out.reserveCapacity(uses.reduce(0) { $0 + graph.range(ofArc: Int($1.arc)).count })
        for u in uses {
            let r = graph.range(ofArc: Int(u.arc))
            if u.reversed {
                for k in stride(from: r.upperBound - 1, to: r.lowerBound, by: -1) where kept[k] {
                    out.append(graph.points[k])
                }
            } else {
                for k in r.lowerBound..<(r.upperBound - 1) where kept[k] { out.append(graph.points[k]) }
            }
        }
        return out
    }

    /// The number of points and twice the signed area of a ring's simplified outline, without building it.
    private func outlineArea(_ uses: ArraySlice<ArcUse>) -> (count: Int, area: Int128) {
        var count = 0
        var area: Int128 = 0
        var first = TilePoint(0, 0)
        var prev = TilePoint(0, 0)
        func add(_ p: TilePoint) {
            if count == 0 { first = p } else { area += Int128(prev.x) * Int128(p.y) - Int128(p.x) * Int128(prev.y) }
            prev = p
            count += 1
        }
        for u in uses {
            let r = graph.range(ofArc: Int(u.arc))
            if u.reversed {
                for k in stride(from: r.upperBound - 1, to: r.lowerBound, by: -1) where kept[k] { add(graph.points[k]) }
            } else {
                for k in r.lowerBound..<(r.upperBound - 1) where kept[k] { add(graph.points[k]) }
            }
        }
        if count > 0 { area += Int128(prev.x) * Int128(first.y) - Int128(first.x) * Int128(prev.y) }
        return (count, area)
    }

    private mutating func refine(i: Int, j: Int, whole: Bool) {
        let stamp = Int32(rounds)
        if whole {
            for k in (i + 1)..<j where !kept[k] {
                kept[k] = true
                pointRound[k] = stamp
                restoredLast.append(k)
                restored += 1
            }
        } else {
            let k = ArcDouglasPeucker.farthest(graph.points, i, j).index
            kept[k] = true
            pointRound[k] = stamp
            restoredLast.append(k)
            restored += 1
        }
        arcRound[graph.arc(containing: i)] = stamp
    }

    private func currentSegments(into out: inout [Segment]) {
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(graph.points.count)
        let pts = graph.points
        let previous = previous
        for a in 0..<graph.arcCount {
            let r = graph.range(ofArc: a)
            var i = r.lowerBound
            for j in (r.lowerBound + 1)..<r.upperBound where kept[j] {
                let fresh = pointRound[i] == previous || pointRound[j] == previous
                out.append(
                    Segment(
                        a: pts[i], b: pts[j], i: i, j: j, box: GridBox(pts[i], pts[j]), fresh: fresh,
                        last: j == r.upperBound - 1))
                i = j
            }
        }
    }

    private struct Flag {
        var i: Int
        var j: Int
    }

    /// Spans of the arcs of `uses` with removed vertices, as (i, j) of consecutive kept points.
    private func spans(of uses: ArraySlice<ArcUse>) -> [Flag] {
        var out: [Flag] = []
        for u in uses {
            let r = graph.range(ofArc: Int(u.arc))
            var i = r.lowerBound
            for j in (r.lowerBound + 1)..<r.upperBound where kept[j] {
                if j > i + 1 { out.append(Flag(i: i, j: j)) }
                i = j
            }
        }
        return out
    }

    /// Check 1: rings that collapsed or flipped (among those with an arc the last round changed).
    private func ringFailures() -> [Flag] {
        var out: [Flag] = []
        let previous = previous
        for r in 0..<graph.ringCount {
            guard let uses = graph.uses(ofRing: r), graph.ringAreas[r] != 0,
                uses.contains(where: { arcRound[Int($0.arc)] == previous })
            else { continue }
            let (count, area) = outlineArea(uses)
            guard count < 3 || area == 0 || (area > 0) != (graph.ringAreas[r] > 0) else { continue }
            var best: (flag: Flag, d2: Double, p: TilePoint)?
            for s in spans(of: uses) {
                let (k, d2) = ArcDouglasPeucker.farthest(graph.points, s.i, s.j)
                let p = graph.points[k]
                if let b = best, d2 < b.d2 || (d2 == b.d2 && !TilePoint.precedes(p, b.p)) { continue }
                best = (s, d2, p)
            }
            if let best { out.append(best.flag) }
        }
        return out
    }

    /// Check 2: simplified segments that meet other than at a shared end point (pairs with a fresh segment);
    /// `grid` files `segs` by their boxes.
    private func crossings(_ segs: [Segment], grid: CellGrid) -> [Flag] {
        var out: [Flag] = []
        for s in segs.indices where segs[s].fresh {
            let bs = segs[s].box
            grid.forEachCell(in: bs) { cell, items in
                for t32 in items {
                    let t = Int(t32)
                    // Each pair once: a fresh segment meets an older one from its own side, another fresh one
                    // from the lower index.
                    guard t > s || (t != s && !segs[t].fresh) else { continue }
                    guard segs[s].refinable || segs[t].refinable else { continue }
                    let bt = segs[t].box
                    guard bs.intersects(bt) else { continue }
                    // Each pair once: in the cell of the lower corner of the boxes' overlap.
                    guard cell == grid.cellIndex(max(bs.minX, bt.minX), max(bs.minY, bt.minY)) else { continue }
                    guard Self.conflict(segs[s], segs[t]) else { continue }
                    if segs[s].refinable { out.append(Flag(i: segs[s].i, j: segs[s].j)) }
                    if segs[t].refinable { out.append(Flag(i: segs[t].i, j: segs[t].j)) }
                }
            }
        }
        return out
    }

    /// True when two distinct segments share a point other than one common end point (where they may meet if they
    /// do not run along each other).
    private static func conflict(_ s: Segment, _ t: Segment) -> Bool {
        if s.a == s.b || t.a == t.b { return true }
        if (s.a == t.a && s.b == t.b) || (s.a == t.b && s.b == t.a) { return true }
        let p: TilePoint, q: TilePoint, r: TilePoint
        if s.a == t.a {
            (p, q, r) = (s.a, s.b, t.b)
        } else if s.a == t.b {
            (p, q, r) = (s.a, s.b, t.a)
        } else if s.b == t.a {
            (p, q, r) = (s.b, s.a, t.b)
        } else if s.b == t.b {
            (p, q, r) = (s.b, s.a, t.a)
        } else {
            return RingValidator.intersects(s.a, s.b, t.a, t.b)
        }
        guard RingValidator.orientation(p, q, r) == 0 else { return false }
        let dot =
            (Int128(q.x) - Int128(p.x)) * (Int128(r.x) - Int128(p.x))
            + (Int128(q.y) - Int128(p.y)) * (Int128(r.y) - Int128(p.y))
        return dot > 0
    }

    /// Check 3: kept points strictly inside the region a span's chord cuts off: fresh spans against every kept
    /// point (the ends of the segments `grid` files, nil when no segment is fresh), the others against the points
    /// the last round put back.
    private func jumps(_ segs: [Segment], grid: CellGrid?) -> [Flag] {
        let pts = graph.points
        var out: [Flag] = []
        var older: (boxes: [GridBox], segments: [Int]) = ([], [])
        let checksOlder = !restoredLast.isEmpty
        for (k, s) in segs.enumerated() where s.refinable && (s.fresh || checksOlder) {
            var box = s.box
            for m in (s.i + 1)..<s.j { box.add(pts[m]) }
            if s.fresh {
                if let grid, freshSpanJumps(s, box: box, segs, grid: grid) { out.append(Flag(i: s.i, j: s.j)) }
            } else {
                older.boxes.append(box)
                older.segments.append(k)
            }
        }
        if !older.boxes.isEmpty {
            jumps(older, segs, points: restoredLast.map { pts[$0] }, into: &out)
        }
        return out
    }

    /// Whether a kept point lies strictly inside the region the fresh span `s` (its box `box`, removed vertices
    /// included) cuts off. The kept points are the `a` ends of `segs` and the `b` ends of arcs' last segments, each
    /// looked at in the cell of `grid` that holds it (so once per segment it ends).
    private func freshSpanJumps(_ s: Segment, box: GridBox, _ segs: [Segment], grid: CellGrid) -> Bool {
        let pts = graph.points
        // The region lies within maxD2 of the chord (it is inside the hull of the span); measured when needed.
        var maxD2 = -1.0
        var hit = false
        func test(_ p: TilePoint) -> Bool {
            guard p != s.a, p != s.b, box.contains(p) else { return false }
            if maxD2 < 0 {
                maxD2 = 0
                for m in (s.i + 1)..<s.j { maxD2 = max(maxD2, ArcDouglasPeucker.distance2(pts[m], s.a, s.b)) }
            }
            guard ArcDouglasPeucker.distance2(p, s.a, s.b) <= maxD2 else { return false }
            return Self.strictlyInside(p, pts, s.i, s.j)
        }
        grid.forEachCell(in: box) { cell, items in
            guard !hit else { return }
            for t32 in items {
                let t = segs[Int(t32)]
                if grid.cellIndex(t.a.x, t.a.y) == cell && test(t.a) {
                    hit = true
                    return
                }
                if t.last && grid.cellIndex(t.b.x, t.b.y) == cell && test(t.b) {
                    hit = true
                    return
                }
            }
        }
        return hit
    }

    /// The spans (`spans.boxes[n]`: the box of span `segs[spans.segments[n]]`) with a point of `points` strictly
    /// inside the region their chord cuts off.
    private func jumps(
        _ spans: (boxes: [GridBox], segments: [Int]), _ segs: [Segment], points: [TilePoint],
        into out: inout [Flag]
    ) {
        let pts = graph.points
        let grid = CellGrid(boxes: points.map { GridBox(point: $0) }, queries: spans.boxes)
        for (n, box) in spans.boxes.enumerated() {
            let s = segs[spans.segments[n]]
            var maxD2 = -1.0
            var hit = false
            grid.forEachCell(in: box) { _, items in
                guard !hit else { return }
                for v in items {
                    let p = points[Int(v)]
                    guard p != s.a, p != s.b, box.contains(p) else { continue }
                    // The region lies within maxD2 of the chord (it is inside the hull of the span).
                    if maxD2 < 0 {
                        maxD2 = 0
                        for m in (s.i + 1)..<s.j { maxD2 = max(maxD2, ArcDouglasPeucker.distance2(pts[m], s.a, s.b)) }
                    }
                    guard ArcDouglasPeucker.distance2(p, s.a, s.b) <= maxD2 else { continue }
                    if Self.strictlyInside(p, pts, s.i, s.j) {
                        hit = true
                        return
                    }
                }
            }
            if hit { out.append(Flag(i: s.i, j: s.j)) }
        }
    }

    /// True when `p` lies strictly inside the ring `pts[i...j]` closed by the chord (even–odd rule, exact).
    private static func strictlyInside(_ p: TilePoint, _ pts: [TilePoint], _ i: Int, _ j: Int) -> Bool {
        var inside = false
        var prev = pts[j]
        for k in i...j {
            let a = prev
            let b = pts[k]
            prev = b
            let o = RingValidator.orientation(a, b, p)
            if o == 0 && RingValidator.onSegment(a, b, p) { return false }
            if (a.y > p.y) != (b.y > p.y) {
                if (b.y > a.y && o > 0) || (b.y < a.y && o < 0) { inside.toggle() }
            }
        }
        return inside
    }
}
