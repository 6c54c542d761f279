import KartpackCore

/// Exact validity checks for rings on the integer tile grid (all arithmetic in `Int128`, so any `Int32`
/// coordinates are handled without overflow).
///
/// Used after quantization to decide whether a polygon must go back to GEOS for repair (formats.md §1,
/// "Re-validate every polygon after rounding"). Segments are pruned with a sort-by-x sweep; the cost is
/// O(n log n) plus the number of segment pairs whose x-ranges overlap, which is quadratic for rings made of many
/// long, x-overlapping segments (a star, the slivers of a clipped saw-tooth): `hasIntersections(_:budget:)` stops
/// after a budget of pair tests and says it could not decide, and the plain form then decides with the
/// Shamos–Hoey sweep (`SegmentSweep`, O(n log n) whatever the shape; slower than the x-sort on ordinary rings).
public enum RingValidator {
    /// Segment pairs tested per segment (plus a fixed allowance) before `hasIntersections` gives up.
    public static let pairsPerSegment = 64
    /// The fixed allowance of pair tests.
    public static let pairAllowance = 1 << 20

    /// Where a point lies relative to a ring.
    public enum Location: Sendable, Hashable {
        /// Strictly inside.
        case inside
        /// Strictly outside.
        case outside
        /// On an edge or a vertex.
        case boundary
    }

    /// True when an open ring (no closing duplicate) neither crosses nor touches itself: no two non-adjacent
    /// edges share a point, and no two adjacent edges fold back over each other (a spike). A ring with fewer
    /// than 3 points is not simple; repeated consecutive points are not allowed either.
    public static func isSimple(_ ring: [TilePoint]) -> Bool {
        guard ring.count >= 3 else { return false }
        return !hasIntersections([ring])
    }

    /// True when any ring in `rings` is not simple, or any two rings share a point (cross, overlap or touch).
    ///
    /// This is stricter than OGC validity, which lets a hole touch its exterior at one point: such polygons
    /// are reported too, so a caller that repairs them gets them back unchanged. Rings must be open and
    /// have at least 3 points (shorter rings are reported as intersecting).
    public static func hasIntersections(_ rings: [[TilePoint]]) -> Bool {
        let segments = rings.reduce(0) { $0 + $1.count }
        if let answer = hasIntersections(rings, budget: sweepAfterPairs * segments + sweepAfterAllowance) {
            return answer
        }
        // The x-sort ran out of budget (long edges overlapping in x): the same answer from the sweep, O(n log n).
        // An interrupted sweep counts as "intersects".
        let vertices = rings.map { $0.map { SegmentSweep.Vertex(x: Int64($0.x), y: Int64($0.y)) } }
        guard let disjoint = SegmentSweep.edgesAreDisjoint(vertices) else { return true }
        return !disjoint
    }

    /// Pair tests per segment (plus `sweepAfterAllowance`) before `hasIntersections(_:)` hands over to the sweep.
    public static let sweepAfterPairs = 8
    /// The fixed allowance of pair tests before `hasIntersections(_:)` hands over to the sweep.
    public static let sweepAfterAllowance = 1 << 16

    /// `hasIntersections(_:)` with a bound on the work: nil when more than `budget` segment pairs (default
    /// `pairsPerSegment` × segments + `pairAllowance`) had to be tested, or `cancellation` was set, before an
    /// answer was found.
    public static func hasIntersections(
        _ rings: [[TilePoint]], budget: Int?, cancellation: CancellationFlag = .process
    ) -> Bool? {
        let (segments, degenerate) = sortedSegments(rings)
        if degenerate > 0 { return true }  // a ring of fewer than 3 points or a zero-length edge
        let limit = budget ?? (pairsPerSegment * segments.count + pairAllowance)
        return forEachMeeting(segments, budget: limit, cancellation: cancellation) { false }
    }

    /// How many pairs of edges of `rings` meet (as in `hasIntersections`: crossings, touches, overlaps and spikes),
    /// counting up to `limit`: the size of the noding a repair of them faces. Nil when the x-sort needed more than
    /// `pairsPerTest` × segments + `allowance` pair tests first (long edges overlapping in x: count as many) or
    /// `cancellation` was set.
    public static func intersectionCount(
        _ rings: [[TilePoint]], limit: Int, pairsPerTest: Int = pairsPerSegment, allowance: Int = pairAllowance,
        cancellation: CancellationFlag = .process
    ) -> Int? {
        let (segments, degenerate) = sortedSegments(rings)
        var count = degenerate
        if count >= limit { return limit }
        let budget = pairsPerTest * segments.count + allowance
        let walked = forEachMeeting(segments, budget: budget, cancellation: cancellation) {
            count += 1
            return count < limit
        }
        return walked == nil ? nil : min(count, limit)
    }

    /// True when two edges of `rings` cross at a point inside both, or overlap along a stretch (share more than one
    /// point; an edge folding back onto the next is one): GEOS reports either as a self-intersection, so polygons
    /// with such rings are not valid in OGC whatever else holds, and the grid repair need not ask GEOS. False when
    /// no pair does (rings may still touch: this is no validity test); nil when the x-sort needed more than
    /// `pairsPerSegment` × segments + `pairAllowance` pair tests or `cancellation` was set.
    public static func hasCrossing(_ rings: [[TilePoint]], cancellation: CancellationFlag = .process) -> Bool? {
        let (segments, _) = sortedSegments(rings)
        let budget = pairsPerSegment * segments.count + pairAllowance
        return forEachMeeting(segments, budget: budget, cancellation: cancellation, crossingsOnly: true) { false }
    }

    /// The sides (-1, 0, 1) of a and b seen from c–d, and of c and d seen from a–b: the two segments cross
    /// inside both exactly when each pair has opposite signs.
    @inline(__always)
    private static func sides(_ a: TilePoint, _ b: TilePoint, _ c: TilePoint, _ d: TilePoint) -> (
        Int128, Int128, Int128, Int128
    ) {
        (
            orientation(c, d, a).signum(), orientation(c, d, b).signum(),
            orientation(a, b, c).signum(), orientation(a, b, d).signum()
        )
    }

    /// True when closed segments a–b and c–d cross at a point inside both, or share more than one point.
    static func crossesOrOverlaps(_ a: TilePoint, _ b: TilePoint, _ c: TilePoint, _ d: TilePoint) -> Bool {
        let (d1, d2, d3, d4) = sides(a, b, c, d)
        if d1 * d2 < 0 && d3 * d4 < 0 { return true }
        guard d1 == 0 && d2 == 0 else { return false }
        // Collinear: the overlap of their projections on the longer axis has a length.
        let alongX = abs(Int64(b.x) - Int64(a.x)) >= abs(Int64(b.y) - Int64(a.y))
        func t(_ p: TilePoint) -> Int32 { alongX ? p.x : p.y }
        return max(min(t(a), t(b)), min(t(c), t(d))) < min(max(t(a), t(b)), max(t(c), t(d)))
    }

    /// The edges of `rings` sorted by their left end, and how many degenerate places were left out: each ring of
    /// fewer than 3 points and each zero-length edge.
    private static func sortedSegments(_ rings: [[TilePoint]]) -> (segments: [Segment], degenerate: Int) {
        var segments: [Segment] = []
        segments.reserveCapacity(rings.reduce(0) { $0 + $1.count })
        var degenerate = 0
        for (ri, ring) in rings.enumerated() {
            let n = ring.count
            guard n >= 3 else {
                degenerate += 1
                continue
            }
            for i in 0..<n {
                let a = ring[i]
                let b = ring[i + 1 == n ? 0 : i + 1]
                if a == b {
                    degenerate += 1
                    continue
                }
                segments.append(
                    Segment(
                        a: a, b: b, ring: Int32(truncatingIfNeeded: ri), index: Int32(truncatingIfNeeded: i),
                        ringCount: Int32(truncatingIfNeeded: n)))
            }
        }
        // By (minX, ring, index): edges were appended in (ring, index) order, so a stable sort by minX is enough.
        return (sortedByMinX(segments), degenerate)
    }

    /// `segments` stably sorted by `minX`: a counting sort when the x-range is small against their number (a
    /// tile's pieces: a few thousand columns), else a sort of integer keys (minX over the position).
    private static func sortedByMinX(_ segments: [Segment]) -> [Segment] {
        guard var lo = segments.first?.minX else { return segments }
        var hi = lo
        for s in segments {
            lo = min(lo, s.minX)
            hi = max(hi, s.minX)
        }
        let range = Int(hi) - Int(lo) + 1
        if segments.count >= 64 && range <= 2 * segments.count {
            var starts = [Int](repeating: 0, count: range + 1)
            for s in segments { starts[Int(s.minX) - Int(lo) + 1] += 1 }
            for k in 1..<starts.count { starts[k] += starts[k - 1] }
            return [Segment](unsafeUninitializedCapacity: segments.count) { buffer, count in
                for s in segments {
                    let k = Int(s.minX) - Int(lo)
                    (buffer.baseAddress! + starts[k]).initialize(to: s)
                    starts[k] += 1
                }
                count = segments.count
            }
        }
        // A key of minX (made unsigned, order kept) over the append position sorts alike, comparing integers.
        var keys = segments.indices.map { k in
            UInt64(UInt32(bitPattern: segments[k].minX) ^ 0x8000_0000) << 32 | UInt64(k)
        }
        keys.sort()
        return keys.map { segments[Int(truncatingIfNeeded: $0 & 0xffff_ffff)] }
    }

    /// The x-sort walk: calls `meet` for each pair of edges that meet (cross, touch, overlap, or fold back onto the
    /// next edge of their ring; `crossingsOnly`: cross inside both or overlap, `crossesOrOverlaps`) until it returns
    /// false. True when `meet` stopped it, false when every pair was seen, nil when more than `budget` pairs had to
    /// be tested or `cancellation` was set.
    @inline(__always)
    private static func forEachMeeting(
        _ segments: [Segment], budget: Int, cancellation: CancellationFlag, crossingsOnly: Bool = false,
        _ meet: () -> Bool
    ) -> Bool? {
        var work = 0
        for i in segments.indices {
            let s = segments[i]
            var j = i + 1
            while j < segments.count, segments[j].minX <= s.maxX {
                let t = segments[j]
                j += 1
                work += 1
                if work & 0xFFFF == 0 && (work > budget || cancellation.isCancelled) { return nil }
                if t.maxY < s.minY || t.minY > s.maxY { continue }
                let meets: Bool
                if s.ring == t.ring && (s.index + 1) % s.ringCount == t.index {
                    meets = foldsBack(s, t)
                } else if s.ring == t.ring && (t.index + 1) % s.ringCount == s.index {
                    meets = foldsBack(t, s)
                } else if crossingsOnly {
                    meets = crossesOrOverlaps(s.a, s.b, t.a, t.b)
                } else {
                    meets = intersects(s.a, s.b, t.a, t.b)
                }
                if meets && !meet() { return true }
            }
        }
        return false
    }

    /// Locates `p` relative to the ring (open or closed), exactly.
    public static func locate(_ p: TilePoint, in ring: [TilePoint]) -> Location {
        let n = ring.count
        guard n >= 3 else { return .outside }
        var inside = false
        var j = n - 1
        for i in 0..<n {
            let a = ring[j]
            let b = ring[i]
            j = i
            if orientation(a, b, p) == 0 && onSegment(a, b, p) { return .boundary }
            // Half-open rule on y: count edges that straddle the horizontal line through p.
            if (a.y > p.y) != (b.y > p.y) {
                // x of the crossing compared with p.x, without division: sign depends on edge direction.
                let o = orientation(a, b, p)
                if (b.y > a.y && o > 0) || (b.y < a.y && o < 0) { inside.toggle() }
            }
        }
        return inside ? .inside : .outside
    }

    /// Twice the signed area of triangle (a, b, c): positive when c lies to the left of a→b with y up.
    @inlinable
    public static func orientation(_ a: TilePoint, _ b: TilePoint, _ c: TilePoint) -> Int128 {
        let bx = Int64(b.x) - Int64(a.x), by = Int64(b.y) - Int64(a.y)
        let cx = Int64(c.x) - Int64(a.x), cy = Int64(c.y) - Int64(a.y)
        // In 64 bits when nothing overflows (tile coordinates: always), else the same value in 128 bits.
        let (p, o1) = bx.multipliedReportingOverflow(by: cy)
        let (q, o2) = by.multipliedReportingOverflow(by: cx)
        if !o1 && !o2 {
            let (d, o3) = p.subtractingReportingOverflow(q)
            if !o3 { return Int128(d) }
        }
        return Int128(bx) * Int128(cy) - Int128(by) * Int128(cx)
    }

    /// True when c (known collinear with a, b) lies on the closed segment a–b.
    @inline(__always)
    static func onSegment(_ a: TilePoint, _ b: TilePoint, _ c: TilePoint) -> Bool {
        min(a.x, b.x) <= c.x && c.x <= max(a.x, b.x) && min(a.y, b.y) <= c.y && c.y <= max(a.y, b.y)
    }

    /// True when closed segments a–b and c–d share at least one point.
    static func intersects(_ a: TilePoint, _ b: TilePoint, _ c: TilePoint, _ d: TilePoint) -> Bool {
        let (d1, d2, d3, d4) = sides(a, b, c, d)
        if d1 * d2 < 0 && d3 * d4 < 0 { return true }
        if d1 == 0 && onSegment(c, d, a) { return true }
        if d2 == 0 && onSegment(c, d, b) { return true }
        if d3 == 0 && onSegment(a, b, c) { return true }
        if d4 == 0 && onSegment(a, b, d) { return true }
        return false
    }

    /// For consecutive edges p→q, q→r: true when r turns straight back along p→q (a spike).
    static func foldsBack(_ first: Segment, _ second: Segment) -> Bool {
        let p = first.a
        let q = first.b
        let r = second.b
        guard orientation(p, q, r) == 0 else { return false }
        let dot =
            (Int128(q.x) - Int128(p.x)) * (Int128(r.x) - Int128(q.x))
            + (Int128(q.y) - Int128(p.y)) * (Int128(r.y) - Int128(q.y))
        return dot < 0
    }

    struct Segment {
        var a: TilePoint
        var b: TilePoint
        var ring: Int32
        var index: Int32
        var ringCount: Int32
        var minX: Int32
        var maxX: Int32
        var minY: Int32
        var maxY: Int32

        init(a: TilePoint, b: TilePoint, ring: Int32, index: Int32, ringCount: Int32) {
            self.a = a
            self.b = b
            self.ring = ring
            self.index = index
            self.ringCount = ringCount
            minX = min(a.x, b.x)
            maxX = max(a.x, b.x)
            minY = min(a.y, b.y)
            maxY = max(a.y, b.y)
        }
    }
}
