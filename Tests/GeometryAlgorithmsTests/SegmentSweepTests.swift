import Foundation
import GeometryAlgorithms
import KartpackCore
import KartpackTestSupport
import Testing

@Suite struct SegmentSweepTests {
    static func vertices(_ ring: [TilePoint]) -> [SegmentSweep.Vertex] {
        ring.map { SegmentSweep.Vertex(x: Int64($0.x), y: Int64($0.y)) }
    }

    /// Random rings on a tiny grid (many crossings, touches, collinear overlaps and spikes) agree with the
    /// pairwise check of `RingValidator`.
    @Test func agreesWithThePairwiseCheckOnRandomGridRings() {
        var rng = SplitMix64(seed: 3)
        var simple = 0
        for _ in 0..<4000 {
            let n = Int.random(in: 3...9, using: &rng)
            var ring: [TilePoint] = []
            for _ in 0..<n {
                let p = TilePoint(Int32.random(in: 0...5, using: &rng), Int32.random(in: 0...5, using: &rng))
                if ring.last != p { ring.append(p) }
            }
            if ring.count > 1, ring.first == ring.last { ring.removeLast() }
            guard ring.count >= 3 else { continue }
            let expected = RingValidator.isSimple(ring)
            #expect(SegmentSweep.edgesAreDisjoint([Self.vertices(ring)], cancellation: .never) == expected, "\(ring)")
            if expected { simple += 1 }
        }
        #expect(simple > 200)
    }

    @Test func twoRingsMustNotMeet() {
        let square = Self.vertices([TilePoint(0, 0), TilePoint(4, 0), TilePoint(4, 4), TilePoint(0, 4)])
        let inner = Self.vertices([TilePoint(1, 1), TilePoint(2, 1), TilePoint(2, 2)])
        let touching = Self.vertices([TilePoint(4, 2), TilePoint(6, 1), TilePoint(6, 3)])
        #expect(SegmentSweep.edgesAreDisjoint([square, inner], cancellation: .never) == true)
        #expect(SegmentSweep.edgesAreDisjoint([square, touching], cancellation: .never) == false)
    }

    @Test func denseStarsAndSawTeethInDoubles() {
        // A 200 000-vertex star: quadratic for an extent-based pair search, one sweep here.
        var star: [Double] = []
        let n = 200_000
        for k in 0..<n {
            let a = 2 * Double.pi * Double(k) / Double(n)
            let r = k % 2 == 0 ? 11_000.0 : 1_100.0
            star += [2_000_000 + r * cos(a), 8_200_000 + r * sin(a)]
        }
        star += [star[0], star[1]]
        #expect(SegmentSweep.isSimpleRing(star[...], cancellation: .never) == true)
        // One tip moved across its neighbour: not simple.
        var broken = star
        broken[2 * 1000] = broken[2 * 1004]
        broken[2 * 1000 + 1] = broken[2 * 1004 + 1] + 50
        #expect(SegmentSweep.isSimpleRing(broken[...], cancellation: .never) == false)
        // Zero area, a repeated vertex, and a cancelled check.
        #expect(SegmentSweep.isSimpleRing([0, 0, 1, 1, 2, 2, 0, 0][...]) == false)
        #expect(SegmentSweep.isSimpleRing([0, 0, 2, 0, 1, 1, 2, 2, 0, 2, 1, 1, 0, 0][...]) == false)
        let flag = CancellationFlag()
        flag.cancel()
        #expect(SegmentSweep.isSimpleRing(star[...], cancellation: flag) == nil)
    }
}
