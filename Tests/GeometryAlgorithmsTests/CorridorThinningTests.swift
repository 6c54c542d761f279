import GeometryAlgorithms
import KartpackCore
import Testing

@Suite struct CorridorThinningTests {
    /// A closed saw-tooth: `teeth` teeth of width `width` and height 10 on a base 5 below them.
    static func sawTooth(teeth: Int, width: Double) -> [Double] {
        var xy: [Double] = []
        for i in 0...(2 * teeth) { xy += [Double(i) * width / 2, i % 2 == 0 ? 10 : 0] }
        let end = Double(teeth) * width
        xy += [end, -5, 0, -5, 0, 10]
        return xy
    }

    /// The largest distance from any vertex of `xy` to the polyline `ring` (both closed).
    static func farthest(_ xy: [Double], from ring: [Double]) -> Double {
        var worst = 0.0
        for i in stride(from: 0, to: xy.count, by: 2) {
            var best = Double.infinity
            for j in stride(from: 0, to: ring.count - 2, by: 2) {
                let ax = ring[j], ay = ring[j + 1], dx = ring[j + 2] - ax, dy = ring[j + 3] - ay
                let l2 = dx * dx + dy * dy
                let t = l2 > 0 ? min(1, max(0, ((xy[i] - ax) * dx + (xy[i + 1] - ay) * dy) / l2)) : 0
                let qx = ax + t * dx - xy[i], qy = ay + t * dy - xy[i + 1]
                best = min(best, (qx * qx + qy * qy).squareRoot())
            }
            worst = max(worst, best)
        }
        return worst
    }

    @Test func joinsTeethNarrowerThanTheToleranceIntoTeethOfTheSameHeight() throws {
        // 1 000 teeth 0.01 wide; tolerance 0.1: about five teeth become one.
        let ring = Self.sawTooth(teeth: 1000, width: 0.01)
        let thinned = try #require(CorridorThinning.thinned(ring[...], tolerance: 0.1, window: 32))
        #expect(thinned.count < ring.count / 4)
        #expect(Array(thinned.prefix(2)) == [0, 10])
        #expect(Array(thinned.suffix(2)) == [0, 10])
        // Every kept vertex is a tip or a base of a tooth, and the heights still alternate between them.
        let ys = stride(from: 1, to: thinned.count - 6, by: 2).map { thinned[$0] }
        #expect(ys.allSatisfy { $0 == 0 || $0 == 10 })
        #expect(zip(ys, ys.dropFirst()).allSatisfy { $0 != $1 })
        // Within the tolerance both ways.
        #expect(Self.farthest(ring, from: thinned) <= 0.1 + 1e-9)
        var midpoints: [Double] = []
        for j in stride(from: 0, to: thinned.count - 2, by: 2) {
            midpoints += [(thinned[j] + thinned[j + 2]) / 2, (thinned[j + 1] + thinned[j + 3]) / 2]
        }
        #expect(Self.farthest(midpoints, from: ring) <= 0.1 + 1e-9)
        #expect(SegmentSweep.isSimpleRing(thinned[...]) == true)
    }

    @Test func leavesDetailAboveTheToleranceAlone() {
        let ring = Self.sawTooth(teeth: 50, width: 1)
        #expect(CorridorThinning.thinned(ring[...], tolerance: 0.1, window: 32) == ring)
        #expect(CorridorThinning.thinned(ring[...], tolerance: 0, window: 32) == ring)
    }

    @Test func theWindowBoundsOneSegment() throws {
        // A straight edge of 1 000 collinear vertices loses them in runs of at most `window`.
        var ring: [Double] = []
        for i in 0...1000 { ring += [Double(i), 0] }
        ring += [1000, 10, 0, 10, 0, 0]
        let thinned = try #require(CorridorThinning.thinned(ring[...], tolerance: 0.5, window: 8))
        #expect(thinned.count / 2 == 1000 / 8 + 4)
    }
}
