import Testing
import GeometryAlgorithms

private func pts(_ coords: [(Int32, Int32)]) -> [TilePoint] { coords.map { TilePoint($0.0, $0.1) } }

private func square(_ x: Int32, _ y: Int32, _ side: Int32) -> [TilePoint] {
    pts([(x, y), (x + side, y), (x + side, y + side), (x, y + side)])
}

private func islet(_ x: Int32, _ y: Int32, radius: Int32) -> [TilePoint] {
    CoverageFixtures.oriented([CoverageFixtures.polygon(centre: TilePoint(x, y), radius: radius, corners: 8)])[0]
}

/// Rings Douglas–Peucker collapses are left out where nothing else changes (`CollapsedRings`), as the per-feature
/// path drops them; where leaving one out would open a gap, leave a feature empty or expose what lies inside it,
/// the ring stays (restored by the topology repair).
@Suite struct CollapsedRingsTests {
    @Test func anIsletOfAFeatureWithLandIsLeftOut() {
        let input: [CoverageFeature] = [[[square(0, 0, 1000)], [islet(2000, 2000, radius: 2)]]]
        let s = SharedBorderSimplifier(tolerance: 4).simplify(input)
        #expect(s.features == [[[square(0, 0, 1000)]]])
        #expect(s.statistics.droppedRings == 1)
        // Below the tolerance that collapses it, the islet is simplified, not left out.
        let fine = SharedBorderSimplifier(tolerance: 0.5).simplify(input)
        #expect(fine.features[0].count == 2 && fine.statistics.droppedRings == 0)
    }

    @Test func aFeatureMadeOnlyOfIsletsKeepsItsLargest() {
        let small = islet(500, 500, radius: 2)
        let large = islet(100, 100, radius: 3)
        let input: [CoverageFeature] = [[[small], [large]], [[square(1000, 1000, 200)]]]
        let s = SharedBorderSimplifier(tolerance: 8).simplify(input)
        #expect(s.features[0].count == 1)
        let kept = s.features[0][0][0]
        #expect(kept.count >= 3 && Set(kept).isSubset(of: Set(large)), "\(kept)")
        #expect(s.statistics.droppedRings == 1)
        for f in s.features { #expect(CoverageMeasure.isValidOnGrid(f)) }
    }

    @Test func anIsletInALakeGoesWithTheLake() {
        // Feature 1's islet fills feature 0's hole exactly; feature 1 has land elsewhere.
        let hole = islet(500, 500, radius: 3)
        let input: [CoverageFeature] = [
            [CoverageFixtures.oriented([square(0, 0, 1000), hole])],
            [[square(2000, 0, 500)], [hole]],
        ]
        let before = CoverageMeasure.coverage(input)
        let s = SharedBorderSimplifier(tolerance: 8).simplify(input)
        #expect(s.features == [[[square(0, 0, 1000)]], [[square(2000, 0, 500)]]])
        #expect(s.statistics.droppedRings == 2)
        // The islet's area went to the lake's owner: no gap, no overlap.
        let after = CoverageMeasure.coverage(s.features)
        #expect(after.overlap == 0 && after.covered == before.covered)
    }

    @Test func aCollapsedRingWithSomethingInItsBoxStays() {
        // A thin diagonal sliver (0.7 units wide) whose box holds a small square of another feature.
        let sliver = CoverageFixtures.oriented([pts([(0, 0), (1, 0), (101, 100), (100, 100)])])[0]
        let other = square(60, 10, 10)
        let alone: [CoverageFeature] = [[[square(500, 500, 100)], [sliver]]]
        #expect(SharedBorderSimplifier(tolerance: 3).simplify(alone).features[0].count == 1)
        let crowded: [CoverageFeature] = alone + [[[other]]]
        let s = SharedBorderSimplifier(tolerance: 3).simplify(crowded)
        #expect(s.features[0].count == 2 && s.statistics.droppedRings == 0)
        #expect(s.features[0][1][0].count >= 3)
        for f in s.features { #expect(CoverageMeasure.isValidOnGrid(f)) }
        #expect(CoverageMeasure.coverage(s.features).overlap == 0)
    }

    @Test func aCollapsedRingTouchingANeighbourAtAVertexIsLeftOut() {
        // The tiny ring meets the neighbour's corner (100, 100) only: a node, but no shared border.
        let tiny = CoverageFixtures.oriented([pts([(100, 100), (102, 101), (101, 102)])])[0]
        let input: [CoverageFeature] = [[[square(0, 0, 100)]], [[square(500, 500, 100)], [tiny]]]
        let s = SharedBorderSimplifier(tolerance: 4).simplify(input)
        // The square's ring may start at its node.
        #expect(s.features[0].count == 1 && Set(s.features[0][0][0]) == Set(square(0, 0, 100)))
        #expect(s.features[1] == [[square(500, 500, 100)]])
        #expect(s.statistics.droppedRings == 1)
    }

    @Test func aCollapsedRingSharingABorderStays() {
        // The triangle lies against the square's right edge: leaving it out would open a gap in the coverage.
        let triangle = CoverageFixtures.oriented([pts([(100, 40), (101, 41), (100, 42)])])[0]
        let input: [CoverageFeature] = [[[square(0, 0, 100)]], [[square(500, 500, 100)], [triangle]]]
        let s = SharedBorderSimplifier(tolerance: 4).simplify(input)
        #expect(s.features[1].count == 2 && s.statistics.droppedRings == 0)
        #expect(s.features[1][1][0].count == 3)
        #expect(CoverageMeasure.coverage(s.features).overlap == 0)
        for f in s.features { #expect(CoverageMeasure.isValidOnGrid(f)) }
    }
}
