import GeometryAlgorithms
import KartpackTestSupport
import Testing

private func pts(_ coords: [(Int32, Int32)]) -> [TilePoint] { coords.map { TilePoint($0.0, $0.1) } }

@Suite struct RingValidatorTests {
    /// The count the grid repair uses to keep GEOS away from densely crossing pieces (GridRepair.swift).
    @Test func intersectionCountCountsMeetingEdgePairsUpToTheLimit() {
        let square = pts([(0, 0), (10, 0), (10, 10), (0, 10)])
        #expect(RingValidator.intersectionCount([square], limit: 100) == 0)
        let bowtie = pts([(0, 0), (10, 10), (10, 0), (0, 10)])
        #expect(RingValidator.intersectionCount([bowtie], limit: 100) == 1)
        // A shifted copy of the square crosses it twice; the two squares and a bowtie: 3.
        let shifted = pts([(5, 5), (15, 5), (15, 15), (5, 15)])
        #expect(RingValidator.intersectionCount([square, shifted], limit: 100) == 2)
        #expect(RingValidator.intersectionCount([square, shifted, bowtie], limit: 2) == 2)
        // 200 vertical slivers across one long bar: each sliver edge meets both bar edges, 800 pairs; cut at the limit.
        var rings: [[TilePoint]] = [pts([(0, 50), (2_000, 50), (2_000, 51), (0, 51)])]
        for i in 0..<Int32(200) {
            rings.append(pts([(10 * i + 5, 0), (10 * i + 6, 0), (10 * i + 6, 100), (10 * i + 5, 100)]))
        }
        #expect(RingValidator.intersectionCount(rings, limit: 10_000) == 800)
        #expect(RingValidator.intersectionCount(rings, limit: 300) == 300)
    }

    /// Crossings inside both edges and overlaps count; touching at a point does not (GridRepair's `crosses`).
    @Test func hasCrossingFindsCrossingsAndOverlapsNotTouches() {
        let square = pts([(0, 0), (10, 0), (10, 10), (0, 10)])
        #expect(RingValidator.hasCrossing([square]) == false)
        #expect(RingValidator.hasCrossing([pts([(0, 0), (10, 10), (10, 0), (0, 10)])]) == true)  // a bowtie
        // Corner to corner, and a vertex on the other's edge: touches.
        #expect(RingValidator.hasCrossing([square, pts([(10, 10), (20, 10), (20, 20), (10, 20)])]) == false)
        #expect(RingValidator.hasCrossing([square, pts([(10, 5), (20, 0), (20, 10)])]) == false)
        // A shared stretch of edge (the other way round, and the same way), and a crossing square.
        #expect(RingValidator.hasCrossing([square, pts([(10, 2), (10, 8), (20, 5)])]) == true)
        #expect(RingValidator.hasCrossing([square, pts([(10, 8), (10, 2), (20, 5)])]) == true)
        #expect(RingValidator.hasCrossing([square, pts([(5, 5), (15, 5), (15, 15), (5, 15)])]) == true)
        // A ring touching itself at a repeated vertex (pinched), and one folding back onto itself (a spike).
        #expect(RingValidator.hasCrossing([pts([(0, 0), (10, 0), (5, 5), (10, 10), (0, 10), (5, 5)])]) == false)
        #expect(RingValidator.hasCrossing([pts([(0, 0), (10, 0), (10, 10), (10, 4), (0, 10)])]) == true)
        // Edges on one line: apart, meeting end to end, overlapping.
        #expect(RingValidator.hasCrossing([square, pts([(12, 0), (20, 0), (16, -5)])]) == false)
        #expect(RingValidator.hasCrossing([square, pts([(10, 0), (20, 0), (15, -5)])]) == false)
        #expect(RingValidator.hasCrossing([square, pts([(5, 0), (20, 0), (15, -5)])]) == true)
    }

    @Test func simpleAndNonSimpleRings() {
        #expect(RingValidator.isSimple(pts([(0, 0), (10, 0), (10, 10), (0, 10)])))
        #expect(RingValidator.isSimple(pts([(3, 6), (8, 12), (20, 34)])))
        // Touching itself at a vertex (figure eight without crossing).
        #expect(!RingValidator.isSimple(pts([(0, 0), (10, 0), (5, 5), (10, 10), (0, 10), (5, 5)])))
        // A vertex touching another edge.
        #expect(!RingValidator.isSimple(pts([(0, 0), (10, 0), (10, 10), (5, 0), (0, 10)])))
        // A spike folding back along the previous edge.
        #expect(!RingValidator.isSimple(pts([(0, 0), (10, 0), (10, 10), (10, 5), (0, 10)])))
        // Collinear overlap of non-adjacent edges.
        #expect(!RingValidator.isSimple(pts([(0, 0), (10, 0), (10, 5), (4, 5), (4, 0), (2, 0), (2, -5)])))
        // Degenerate input.
        #expect(!RingValidator.isSimple(pts([(0, 0), (1, 1)])))
        #expect(!RingValidator.isSimple(pts([(0, 0), (0, 0), (1, 1), (1, 0)])))
        // Extreme coordinates do not overflow.
        let m = Int32.max
        let n = Int32.min
        #expect(RingValidator.isSimple(pts([(n, n), (m, n), (m, m), (n, m)])))
        #expect(!RingValidator.isSimple(pts([(n, n), (m, m), (m, n), (n, m)])))
    }

    @Test func locate() {
        let square = pts([(0, 0), (10, 0), (10, 10), (0, 10)])
        #expect(RingValidator.locate(TilePoint(5, 5), in: square) == .inside)
        #expect(RingValidator.locate(TilePoint(10, 5), in: square) == .boundary)
        #expect(RingValidator.locate(TilePoint(0, 0), in: square) == .boundary)
        #expect(RingValidator.locate(TilePoint(11, 5), in: square) == .outside)
        #expect(RingValidator.locate(TilePoint(5, -1), in: square) == .outside)
        let concave = pts([(0, 0), (10, 0), (10, 10), (5, 5), (0, 10)])
        #expect(RingValidator.locate(TilePoint(5, 8), in: concave) == .outside)
        #expect(RingValidator.locate(TilePoint(5, 4), in: concave) == .inside)
    }

    /// The sweep agrees with a plain all-pairs check on random small rings.
    @Test func sweepMatchesBruteForce() {
        var rng = SplitMix64(seed: 42)
        var disagreements = 0
        var simpleSeen = 0
        for _ in 0..<3_000 {
            let n = Int.random(in: 3...7, using: &rng)
            var r: [TilePoint] = []
            for _ in 0..<n {
                let p = TilePoint(Int32.random(in: 0...5, using: &rng), Int32.random(in: 0...5, using: &rng))
                if r.last != p { r.append(p) }
            }
            while r.count > 1 && r.last == r.first { r.removeLast() }
            guard r.count >= 3 else { continue }
            let expected = bruteForceSimple(r)
            if expected { simpleSeen += 1 }
            if RingValidator.isSimple(r) != expected { disagreements += 1 }
        }
        #expect(disagreements == 0)
        #expect(simpleSeen > 50)
    }

    /// Long rings in a narrow x-range take the counting sort of the edges (RingValidator.sortedByMinX): the same
    /// answers as the all-pairs check, simple and not.
    @Test func longRingsInANarrowRangeMatchBruteForce() {
        var rng = SplitMix64(seed: 7)
        var disagreements = 0
        for _ in 0..<200 {
            var r: [TilePoint] = []
            for _ in 0..<Int.random(in: 64...90, using: &rng) {
                let p = TilePoint(Int32.random(in: 0...30, using: &rng), Int32.random(in: 0...30, using: &rng))
                if r.last != p { r.append(p) }
            }
            while r.count > 1 && r.last == r.first { r.removeLast() }
            if RingValidator.isSimple(r) != bruteForceSimple(r) { disagreements += 1 }
        }
        #expect(disagreements == 0)
        // A staircase of 200 steps closed along its top and left side is simple; pulling a corner across it is not.
        var stairs: [TilePoint] = []
        for i in Int32(0)..<200 { stairs += [TilePoint(i, i), TilePoint(i + 1, i)] }
        stairs += [TilePoint(200, 200), TilePoint(0, 200)]
        #expect(bruteForceSimple(stairs))
        #expect(RingValidator.isSimple(stairs))
        stairs[stairs.count - 1] = TilePoint(150, 20)
        #expect(!bruteForceSimple(stairs))
        #expect(!RingValidator.isSimple(stairs))
    }

    /// The 64-bit fast paths of `orientation` and `doubledSignedArea` give the exact 128-bit values, also at the
    /// ends of the `Int32` range, where the orientation's products overflow 64 bits.
    @Test func orientationAndAreaAreExactAtTheEndsOfTheRange() {
        func reference(_ a: TilePoint, _ b: TilePoint, _ c: TilePoint) -> Int128 {
            (Int128(b.x) - Int128(a.x)) * (Int128(c.y) - Int128(a.y))
                - (Int128(b.y) - Int128(a.y)) * (Int128(c.x) - Int128(a.x))
        }
        let values: [Int32] = [.min, .min + 1, -7, 0, 1, 3, .max - 1, .max]
        var rng = SplitMix64(seed: 3)
        for _ in 0..<4_000 {
            let p = (0..<3).map { _ in
                TilePoint(values.randomElement(using: &rng)!, values.randomElement(using: &rng)!)
            }
            #expect(RingValidator.orientation(p[0], p[1], p[2]) == reference(p[0], p[1], p[2]))
            // Twice the signed area of a triangle is its orientation.
            #expect(doubledSignedArea(p) == reference(p[0], p[1], p[2]))
        }
        let far = [TilePoint(.min, .min), TilePoint(.max, .min), TilePoint(.max, .max)]
        #expect(RingValidator.orientation(far[0], far[1], far[2]) == Int128(UInt32.max) * Int128(UInt32.max))
    }

    /// Reference: a ring is simple when every pair of edges meets only where adjacent edges share their vertex.
    /// Written independently of `RingValidator`, with parametric intersection in exact integer fractions.
    private func bruteForceSimple(_ r: [TilePoint]) -> Bool {
        let n = r.count
        func cross(_ ax: Int, _ ay: Int, _ bx: Int, _ by: Int) -> Int { ax * by - ay * bx }
        /// 0 = disjoint, 1 = a single point, 2 = a collinear overlap of positive length.
        func meet(_ a: TilePoint, _ b: TilePoint, _ c: TilePoint, _ d: TilePoint) -> Int {
            let (rx, ry) = (Int(b.x - a.x), Int(b.y - a.y))
            let (sx, sy) = (Int(d.x - c.x), Int(d.y - c.y))
            let (qx, qy) = (Int(c.x - a.x), Int(c.y - a.y))
            let den = cross(rx, ry, sx, sy)
            if den == 0 {
                guard cross(qx, qy, rx, ry) == 0 else { return 0 }
                let len = rx * rx + ry * ry
                let t0 = qx * rx + qy * ry
                let t1 = Int(d.x - a.x) * rx + Int(d.y - a.y) * ry
                let lo = max(0, min(t0, t1))
                let hi = min(len, max(t0, t1))
                return lo > hi ? 0 : (lo == hi ? 1 : 2)
            }
            var tn = cross(qx, qy, sx, sy)
            var un = cross(qx, qy, rx, ry)
            var d = den
            if d < 0 { (tn, un, d) = (-tn, -un, -d) }
            return (0...d).contains(tn) && (0...d).contains(un) ? 1 : 0
        }
        for i in 0..<n {
            for j in (i + 1)..<n {
                let m = meet(r[i], r[(i + 1) % n], r[j], r[(j + 1) % n])
                let adjacent = j == i + 1 || (i == 0 && j == n - 1)
                if adjacent ? m == 2 : m != 0 { return false }
            }
        }
        return true
    }
}
