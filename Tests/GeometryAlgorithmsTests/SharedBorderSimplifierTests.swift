import KartpackTestSupport
import Testing
import GeometryAlgorithms

private func pts(_ coords: [(Int32, Int32)]) -> [TilePoint] { coords.map { TilePoint($0.0, $0.1) } }

/// What a simplified coverage must satisfy, checked independently of the simplifier.
private func expectCoverage(
    _ input: [CoverageFeature], _ out: [CoverageFeature], frame: TileRect, comment: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(out.count == input.count, sourceLocation: sourceLocation)
    for (f, feature) in out.enumerated() {
        // Same structure, every ring valid and every feature valid on the grid (rings disjoint, holes inside).
        #expect(
            feature.map(\.count) == input[f].map(\.count), "\(comment) feature \(f)", sourceLocation: sourceLocation)
        #expect(
            CoverageMeasure.isValidOnGrid(feature), "\(comment) feature \(f) invalid: \(feature)",
            sourceLocation: sourceLocation)
        for (p, rings) in feature.enumerated() {
            for (k, r) in rings.enumerated() {
                // Orientation as in the input.
                let before = doubledSignedArea(input[f][p][k]) > 0
                #expect(
                    (doubledSignedArea(r) > 0) == before, "\(comment) ring \(f)/\(p)/\(k) flipped",
                    sourceLocation: sourceLocation)
            }
        }
    }
    // Shared borders identical: every edge inside the frame is used by exactly two different features, every edge
    // on the frame by one.
    var bad: [String] = []
    for (e, users) in CoverageMeasure.edgeUses(out) {
        let onFrame =
            (e.p.x == e.q.x && (e.p.x == frame.minX || e.p.x == frame.maxX))
            || (e.p.y == e.q.y && (e.p.y == frame.minY || e.p.y == frame.maxY))
        let ok = onFrame ? users.count == 1 : (users.count == 2 && users[0] != users[1])
        if !ok { bad.append("\(e) used by \(users)") }
    }
    #expect(bad.isEmpty, "\(comment) unshared edges: \(bad.prefix(8))", sourceLocation: sourceLocation)
    // No overlap (scanline), no gap (exact: with no overlap, the areas must add up to the frame).
    let (covered, overlap) = CoverageMeasure.coverage(out)
    #expect(overlap == 0, "\(comment) overlap area \(overlap)", sourceLocation: sourceLocation)
    let frameArea = 2 * (Int128(frame.maxX) - Int128(frame.minX)) * (Int128(frame.maxY) - Int128(frame.minY))
    let total = out.reduce(Int128(0)) { $0 + CoverageMeasure.doubledArea($1) }
    #expect(total == frameArea, "\(comment) gap area \(Double(frameArea - total) / 2)", sourceLocation: sourceLocation)
    #expect(abs(covered - Double(frameArea) / 2) < 1e-6 * Double(frameArea), sourceLocation: sourceLocation)
}

/// Vertex count of plain per-ring Douglas–Peucker with the same tolerance.
private func plainCount(_ input: [CoverageFeature], tolerance: Double) -> Int {
    input.reduce(0) {
        $0 + $1.reduce(0) { $0 + $1.reduce(0) { $0 + PlainDouglasPeucker.simplified($1, tolerance: tolerance).count } }
    }
}

@Suite struct SharedBorderSimplifierTests {
    @Test func twoByTwoCoverageKeepsItsSharedBorders() {
        var rng = SplitMix64(seed: 22)
        let (input, frame) = CoverageFixtures.jitteredGrid(
            columns: 2, rows: 2, cell: 400, bends: 12, amplitude: 12, jitter: 30, rng: &rng)
        let s = SharedBorderSimplifier(tolerance: 8).simplify(input)
        expectCoverage(input, s.features, frame: frame)
        // Four cells meeting in the middle: the centre and the four points where inner borders reach the frame are
        // the nodes; the four inner borders are the shared arcs.
        #expect(s.statistics.nodes == 5)
        #expect(s.statistics.sharedArcs == 4)
        #expect(s.statistics.outputVertices < s.statistics.inputVertices / 2)
        #expect(Double(s.statistics.outputVertices) <= 1.1 * Double(plainCount(input, tolerance: 8)))
        // A plain per-ring simplification of the same input breaks the borders.
        let plain = input.map { $0.map { $0.map { PlainDouglasPeucker.simplified($0, tolerance: 8) } } }
        #expect(CoverageMeasure.coverage(plain).overlap > 0)
    }

    @Test func islandThatIsItsOwnPolygonStaysTheNeighboursHole() {
        // Two cells; the left one has a small island, a polygon of its own that is also the cell's hole.
        let left = pts([(0, 0), (300, 0), (300, 300), (0, 300)])
        let right = pts([(300, 0), (600, 0), (600, 300), (300, 300)])
        var island = CoverageFixtures.polygon(centre: TilePoint(150, 150), radius: 6, corners: 24)
        island = CoverageFixtures.oriented([island])[0]
        let input: [CoverageFeature] = [
            [CoverageFixtures.oriented([left, island])], [CoverageFixtures.oriented([right])], [[island]],
        ]
        for tolerance in [1.0, 4, 20, 200] {
            let s = SharedBorderSimplifier(tolerance: tolerance).simplify(input)
            expectCoverage(
                input, s.features, frame: TileRect(minX: 0, minY: 0, maxX: 600, maxY: 300), comment: "tol \(tolerance)")
            let hole = s.features[0][0][1]
            let own = s.features[2][0][0]
            // The same ring, run the other way round.
            #expect(Set(hole) == Set(own) && hole.count == own.count)
            #expect(own.count >= 3)
            // Kept from collapsing with as few points as the checks allow: the two halves of the closed arc met,
            // so each got its farthest point back.
            if tolerance >= 20 { #expect(own.count == 4, "\(own)") }
        }
    }

    @Test func tJunctionBecomesANodeOfTheLongEdge() {
        // A and B sit on C's top edge, which has no vertex where A and B meet; their border bends.
        let a = pts([(0, 0), (50, 0), (52, 10), (47, 20), (53, 30), (48, 40), (50, 50), (0, 50)])
        let b = pts([(50, 0), (100, 0), (100, 50), (50, 50), (48, 40), (53, 30), (47, 20), (52, 10)])
        let c = pts([(0, 50), (100, 50), (100, 100), (70, 103), (30, 97), (0, 100)])
        let input: [CoverageFeature] = [[[a]], [[b]], [[c]]].map { $0.map(CoverageFixtures.oriented) }
        let s = SharedBorderSimplifier(tolerance: 10).simplify(input)
        #expect(s.statistics.junctionsInserted == 1)
        #expect(s.features[2][0][0].contains(TilePoint(50, 50)))
        // C's bottom is not on the frame: the frame check only covers the straight sides, so check sharing here.
        let uses = CoverageMeasure.edgeUses(s.features)
        #expect(uses[.init(TilePoint(0, 50), TilePoint(50, 50))]?.sorted() == [0, 2])
        #expect(uses[.init(TilePoint(50, 50), TilePoint(100, 50))]?.sorted() == [1, 2])
        #expect(CoverageMeasure.coverage(s.features).overlap == 0)
        #expect(s.features[0][0][0].count == 4 && s.features[1][0][0].count == 4)
        for f in s.features { #expect(CoverageMeasure.isValidOnGrid(f)) }
    }

    @Test func ringOrientationAndStartDoNotMatter() {
        var rng = SplitMix64(seed: 7)
        let (grid, frame) = CoverageFixtures.jitteredGrid(
            columns: 4, rows: 3, cell: 200, bends: 6, amplitude: 6, jitter: 25, islandChance: 0.3, rng: &rng)
        let shuffled = CoverageFixtures.shuffledRings(grid, rng: &rng)
        let a = SharedBorderSimplifier(tolerance: 9).simplify(grid)
        let b = SharedBorderSimplifier(tolerance: 9).simplify(shuffled)
        expectCoverage(grid, a.features, frame: frame)
        expectCoverage(shuffled, b.features, frame: frame)
        // The same simplified rings as point cycles, whatever the orientation and start.
        func cycle(_ r: [TilePoint]) -> [TilePoint] {
            let forward = r, back = Array(r.reversed())
            func rotated(_ x: [TilePoint]) -> [TilePoint] {
                let s = x.indices.min { (x[$0].x, x[$0].y) < (x[$1].x, x[$1].y) }!
                return Array(x[s...] + x[..<s])
            }
            let f = rotated(forward), g = rotated(back)
            return f.lexicographicallyPrecedes(g) { ($0.x, $0.y) < ($1.x, $1.y) } ? f : g
        }
        #expect(a.features.map { $0.map { $0.map(cycle) } } == b.features.map { $0.map { $0.map(cycle) } })
        #expect(a.statistics.outputVertices == b.statistics.outputVertices)
    }

    @Test(arguments: [
        (seed: UInt64(1), tolerance: 1.0, clip: false), (seed: 2, tolerance: 4, clip: true),
        (seed: 3, tolerance: 12, clip: false), (seed: 4, tolerance: 30, clip: true),
        (seed: 5, tolerance: 80, clip: true),
        (seed: 6, tolerance: 6, clip: true), (seed: 7, tolerance: 20, clip: false),
        (seed: 8, tolerance: 200, clip: true),
    ])
    func randomJitteredGridStaysACoverage(seed: UInt64, tolerance: Double, clip: Bool) {
        var rng = SplitMix64(seed: seed)
        let columns = Int.random(in: 3...9, using: &rng), rows = Int.random(in: 3...9, using: &rng)
        let (grid, frame) = CoverageFixtures.jitteredGrid(
            columns: columns, rows: rows, cell: 120, origin: TilePoint(-80, -80),
            bends: Int.random(in: 2...8, using: &rng),
            amplitude: 10, jitter: 30, islandChance: 0.25, islandRadius: 2...14, rng: &rng)
        let input = CoverageFixtures.shuffledRings(grid, rng: &rng)
        for f in input { #expect(CoverageMeasure.isValidOnGrid(f), "fixture invalid") }
        let s = SharedBorderSimplifier(tolerance: tolerance, clip: clip ? frame : nil).simplify(input)
        expectCoverage(input, s.features, frame: frame, comment: "seed \(seed)")
        // About as few vertices as plain Douglas–Peucker (which fixes no node but breaks the borders): at most 15%
        // more, or 4 per ring where plain Douglas–Peucker collapses rings to fewer (cells keep their 4 corners).
        let plain = plainCount(input, tolerance: tolerance)
        let rings = input.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
        #expect(Double(s.statistics.outputVertices) <= max(1.15 * Double(plain), 4 * Double(rings)))
        if tolerance <= 30 { #expect(Double(s.statistics.outputVertices) <= 1.15 * Double(plain)) }
        // Deterministic, and independent of feature order.
        #expect(SharedBorderSimplifier(tolerance: tolerance, clip: clip ? frame : nil).simplify(input) == s)
        let order = Array(input.indices).shuffled(using: &rng)
        let again = SharedBorderSimplifier(tolerance: tolerance, clip: clip ? frame : nil).simplify(
            order.map { input[$0] })
        for (k, f) in order.enumerated() { #expect(again.features[k] == s.features[f]) }
    }
}

@Suite struct SharedBorderTopologyTests {
    @Test func smallNeighbourInABayIsNotSwallowed() {
        // P has a narrow bay from its top edge; Q sits in the bay without touching P. Plain Douglas–Peucker at
        // this tolerance closes the bay over Q.
        let p = pts([(0, 0), (140, 0), (140, 200), (160, 200), (160, 0), (300, 0), (300, 300), (0, 300)])
        let q = pts([(145, 100), (155, 100), (155, 110), (145, 110)])
        let input: [CoverageFeature] = [[CoverageFixtures.oriented([p])], [CoverageFixtures.oriented([q])]]
        let plainP = PlainDouglasPeucker.simplified(input[0][0][0], tolerance: 205)
        #expect(CoverageMeasure.coverage([[[plainP]], input[1]]).overlap == 100)
        let s = SharedBorderSimplifier(tolerance: 205).simplify(input)
        #expect(CoverageMeasure.coverage(s.features).overlap == 0)
        #expect(CoverageMeasure.coverage(s.features).covered < CoverageMeasure.coverage(input).covered + 1)
        for f in s.features { #expect(CoverageMeasure.isValidOnGrid(f)) }
        #expect(s.statistics.verticesRestored > 0)
    }

    @Test func neighboursWithAThinGapDoNotCross() {
        // Two wiggly facing edges 2 units apart: straightened independently they would cross. Where no chord
        // misses the other ring, all vertices stay (the simplifier does not move two borders in step).
        var left = [TilePoint(0, 0), TilePoint(100, 0)]
        var right = [TilePoint(200, 0)]
        for k in 1..<20 {
            let y = Int32(k * 10)
            let w: Int32 = k % 2 == 0 ? 6 : -6
            left.append(TilePoint(100 + w, y))
            right.append(TilePoint(102 + w, y))
        }
        left += [TilePoint(100, 200), TilePoint(0, 200)]
        // A free outer side that simplifies.
        for k in stride(from: 19, to: 0, by: -1) { left.append(TilePoint(k % 2 == 0 ? 4 : -4, Int32(k * 10))) }
        right =
            [TilePoint(102, 0), TilePoint(200, 0), TilePoint(200, 200), TilePoint(102, 200)]
            + right.dropFirst().reversed()
        let input: [CoverageFeature] = [[CoverageFixtures.oriented([left])], [CoverageFixtures.oriented([right])]]
        for f in input { #expect(CoverageMeasure.isValidOnGrid(f)) }
        for tolerance in [2.0, 7, 20, 100] {
            let s = SharedBorderSimplifier(tolerance: tolerance).simplify(input)
            #expect(CoverageMeasure.coverage(s.features).overlap == 0, "tolerance \(tolerance)")
            for f in s.features { #expect(CoverageMeasure.isValidOnGrid(f)) }
            #expect(s.statistics.repairRounds <= 16, "zigzags are restored by halving")
            // The free side's 19 wiggles of ±4 go once the tolerance exceeds them.
            let removed = s.statistics.inputVertices - s.statistics.outputVertices
            #expect(removed >= (tolerance > 10 ? 19 : tolerance > 4 ? 1 : 0), "tolerance \(tolerance)")
        }
    }

    @Test func overlappingInputEndsAndStaysValid() {
        // Not a coverage: two wiggly discs that overlap. Their crossings are kept as they were; each ring stays valid.
        func disc(_ c: TilePoint) -> [TilePoint] {
            CoverageFixtures.polygon(centre: c, radius: 100, corners: 90, wiggle: 3)
        }
        let input: [CoverageFeature] = [
            [CoverageFixtures.oriented([disc(TilePoint(0, 0))])],
            [CoverageFixtures.oriented([disc(TilePoint(120, 30))])],
        ]
        let before = CoverageMeasure.coverage(input).overlap
        let s = SharedBorderSimplifier(tolerance: 8).simplify(input)
        for f in s.features { #expect(CoverageMeasure.isValidOnGrid(f)) }
        let after = CoverageMeasure.coverage(s.features).overlap
        #expect(abs(after - before) < 0.05 * before)
        #expect(s.statistics.outputVertices < s.statistics.inputVertices / 2)
    }

    @Test func zeroToleranceOnlyCleansRings() {
        let ring = pts([(0, 0), (10, 0), (10, 0), (10, 10), (0, 10), (0, 0)])
        let s = SharedBorderSimplifier(tolerance: 0).simplify([[[ring]]])
        #expect(s.features == [[[pts([(0, 0), (10, 0), (10, 10), (0, 10)])]]])
        #expect(s.statistics.inputVertices == 4 && s.statistics.outputVertices == 4)
        // Degenerate rings pass through.
        let line = pts([(0, 0), (5, 5)])
        let d = SharedBorderSimplifier(tolerance: 3).simplify([[[line]], []])
        #expect(d.features == [[[line]], []])
        #expect(d.statistics.unsimplifiedRings == 1)
    }

    @Test func clipEdgePointsBetweenBordersAreSimplifiedAway() {
        // Two pieces cut at the clip rectangle's left edge x = -80, with extra collinear points on that edge.
        let clip = TileRect.bufferedTile(extent: 4096, buffer: 80)
        #expect(clip == TileRect(minX: -80, minY: -80, maxX: 4176, maxY: 4176))
        let a = pts([(-80, 0), (-80, 50), (-80, 100), (0, 100), (3, 50), (0, 0)])
        let b = pts([(-80, 100), (-80, 150), (-80, 200), (0, 200), (-3, 150), (0, 100)])
        let s = SharedBorderSimplifier(tolerance: 5, clip: clip).simplify([[[a]], [[b]]])
        #expect(s.features[0][0][0].count == 4 && s.features[1][0][0].count == 4)
        #expect(s.features[0][0][0].contains(TilePoint(-80, 100)) && s.features[1][0][0].contains(TilePoint(-80, 100)))
        #expect(!s.features[0][0][0].contains(TilePoint(-80, 50)))
    }

    @Test func largeGridStaysACoverage() {
        var rng = SplitMix64(seed: 99)
        let (grid, frame) = CoverageFixtures.jitteredGrid(
            columns: 40, rows: 40, cell: 100, origin: TilePoint(-80, -80), bends: 3, amplitude: 12, jitter: 30,
            islandChance: 0.04, islandRadius: 2...12, rng: &rng)
        let s = SharedBorderSimplifier(tolerance: 16, clip: frame).simplify(grid)
        expectCoverage(grid, s.features, frame: frame)
        #expect(s.statistics.sharedArcs > 3000)
    }
}

/// Hostile and broken input: no trap, no hang, the structure kept, only input points in the output.
@Suite struct SharedBorderRobustnessTests {
    @Test func coordinatesAtTheClampLimitDoNotOverflow() {
        let m: Int32 = (1 << 30) - 1  // the quantizer's clamp limit
        let big = pts([(-m, -m), (0, -m), (m, -m), (m, 0), (m, m), (0, m), (-m, m), (-m, 0)])
        let inner = pts([(-m, -m), (0, -m), (0, 0), (-m, 0)])
        let s = SharedBorderSimplifier(tolerance: 1e9, clip: TileRect.bufferedTile(extent: 4096, buffer: 1e12))
            .simplify([[[big]], [[inner]], [[big.reversed()]]])
        #expect(s.features.count == 3)
        for f in s.features { #expect(f[0][0].count >= 3) }
        #expect(TileRect.bufferedTile(extent: 4096, buffer: .infinity).maxX == .max)
        #expect(TileRect.bufferedTile(extent: 4096, buffer: .nan) == TileRect(minX: 0, minY: 0, maxX: 0, maxY: 0))
    }

    @Test(arguments: [UInt64(11), 12, 13, 14, 15, 16])
    func randomGarbageRingsEndWithInputPointsOnly(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var input: [CoverageFeature] = []
        for _ in 0..<Int.random(in: 1...12, using: &rng) {
            var polygons: [[[TilePoint]]] = []
            for _ in 0..<Int.random(in: 0...2, using: &rng) {
                var rings: [[TilePoint]] = []
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    // Few distinct values: repeated points, spikes, collinear runs, crossings, shared edges.
                    rings.append(
                        (0..<Int.random(in: 0...14, using: &rng)).map { _ in
                            TilePoint(
                                Int32.random(in: 0...6, using: &rng) * 10, Int32.random(in: 0...6, using: &rng) * 10)
                        })
                }
                polygons.append(rings)
            }
            input.append(polygons)
        }
        let points = Set(input.flatMap { $0.flatMap { $0.flatMap { $0 } } })
        for tolerance in [0.5, 5, 50] {
            let s = SharedBorderSimplifier(tolerance: tolerance, clip: TileRect(minX: 0, minY: 0, maxX: 60, maxY: 60))
                .simplify(input)
            #expect(s.features.map { $0.map(\.count) } == input.map { $0.map(\.count) })
            // Junctions are input points too (a vertex of one ring put into another's edge).
            #expect(s.features.allSatisfy { $0.allSatisfy { $0.allSatisfy { $0.allSatisfy(points.contains) } } })
            for (f, feature) in input.enumerated() where CoverageMeasure.isValidOnGrid(feature) {
                #expect(CoverageMeasure.isValidOnGrid(s.features[f]), "seed \(seed) feature \(f)")
            }
            #expect(SharedBorderSimplifier(tolerance: tolerance).simplify(input).features.count == input.count)
        }
    }
}
