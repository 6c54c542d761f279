import KartpackCore
import Testing
import VectorTile

/// A closed ring as interleaved coordinates.
private func ring(_ pts: [(Double, Double)]) -> [Double] {
    var xy: [Double] = []
    for p in pts + [pts[0]] { xy += [p.0, p.1] }
    return xy
}

private func pts(_ coords: [(Int32, Int32)]) -> [TilePoint] { coords.map { TilePoint($0.0, $0.1) } }

@Suite struct QuantizerTests {
    let q = Quantizer()

    @Test func roundsWithOneRuleAwayFromZero() {
        var clamped = false
        #expect(q.snap(x: 0.5, y: -0.5, clamped: &clamped) == TilePoint(1, -1))
        #expect(q.snap(x: 2.5, y: -2.5, clamped: &clamped) == TilePoint(3, -3))
        #expect(q.snap(x: 2.49, y: 4095.5, clamped: &clamped) == TilePoint(2, 4096))
        #expect(!clamped)
        #expect(q.snap(x: 1e12, y: -1e12, clamped: &clamped) == TilePoint(Quantizer.coordinateLimit, -Quantizer.coordinateLimit))
        #expect(clamped)
        #expect(q.snap(x: .nan, y: 0, clamped: &clamped) == nil)
    }

    @Test func transformFromMetres() {
        let tile = TileCoordinate(z: 10, x: 550, y: 300)
        let b = SphericalMercator.bounds(of: tile)
        let quantizer = Quantizer(transform: TileTransform(tile: tile, extent: 4096))
        let size = b.maxX - b.minX
        var clamped = false
        // A quarter in from the north-west corner.
        let p = quantizer.snap(x: b.minX + size / 4, y: b.maxY - size / 4, clamped: &clamped)
        #expect(p == TilePoint(1024, 1024))
    }

    @Test func orientsExteriorsPositiveAndHolesNegative() {
        // Exterior counter-clockwise on screen (negative in y-down), hole clockwise (positive): both wrong.
        let ext = ring([(0, 0), (0, 100), (100, 100), (100, 0)])
        let hole = ring([(20, 20), (80, 20), (80, 80), (20, 80)])
        let out = q.quantizePolygons(Geometry.polygons([[ext, hole]]))
        #expect(out.reorientedRings == 2)
        #expect(out.polygons.count == 1)
        #expect(doubledSignedArea(out.polygons[0][0]) > 0)
        #expect(doubledSignedArea(out.polygons[0][1]) < 0)
        #expect(!out.needsRepair)
        // Already right: nothing reversed.
        let again = q.quantizePolygons(Geometry.polygons([[ring(out.polygons[0][0].map { (Double($0.x), Double($0.y)) }),
            ring(out.polygons[0][1].map { (Double($0.x), Double($0.y)) })]]))
        #expect(again.reorientedRings == 0)
        #expect(again.polygons == out.polygons)
        // The encoded stream decodes as exterior + hole.
        #expect(MVTGeometryEncoder.polygons(out.polygons) == out.commands)
    }

    @Test func removesDuplicatesAndClosingPoint() {
        let g = Geometry.polygons([[ring([(0, 0), (0.2, 0.1), (10, 0), (10.4, 0), (10, 10), (0, 10)])]])
        let out = q.quantizePolygons(g)
        #expect(out.polygons == [[pts([(0, 0), (10, 0), (10, 10), (0, 10)])]])
    }

    @Test func dropsCollapsedPolygonsAndHoles() {
        // A polygon smaller than one unit collapses; a tiny hole in a big polygon collapses alone.
        let tiny = [ring([(0.1, 0.1), (0.3, 0.1), (0.3, 0.3)])]
        let withTinyHole = [ring([(0, 0), (50, 0), (50, 50), (0, 50)]), ring([(10.1, 10.1), (10.2, 10.3), (10.3, 10.1)])]
        let out = q.quantizePolygons(Geometry.polygons([tiny, withTinyHole]))
        #expect(out.droppedPolygons == 1)
        #expect(out.droppedHoles == 1)
        #expect(out.holesDroppedWithExterior == 0)
        #expect(out.polygons == [[pts([(0, 0), (50, 0), (50, 50), (0, 50)])]])
    }

    @Test func holeDroppedWithItsCollapsedExterior() {
        // A sliver exterior (10 × 0.4) rounds to a line; its hole must go too, never becoming an exterior.
        let sliver = ring([(0, 0), (10, 0), (10, 0.4), (0, 0.4)])
        let hole = ring([(1, 0.1), (1, 0.3), (9, 0.3), (9, 0.1)])
        let keeper = [ring([(20, 20), (30, 20), (30, 30), (20, 30)])]
        let out = q.quantizePolygons(Geometry.polygons([[sliver, hole], keeper]))
        #expect(out.droppedPolygons == 1)
        #expect(out.holesDroppedWithExterior == 1)
        #expect(out.droppedHoles == 0)
        #expect(out.polygons.count == 1)
        #expect(out.polygons[0].count == 1)
    }

    @Test func dropsExteriorWhoseSignFlipsUnderRounding() {
        // Float area +0.4 (doubled), integer area −2: rounding flipped it, so it is dropped, not reversed.
        let flipped = ring([(0, 0), (4, 0.6), (2, 0.4)])
        let out = q.quantizePolygons(Geometry.polygons([[flipped]]))
        #expect(out.isEmpty)
        #expect(out.droppedPolygons == 1)
        #expect(out.reorientedRings == 0)
    }

    @Test func nonFiniteRingsAreDropped() {
        let out = q.quantizePolygons(Geometry.polygons([[ring([(0, 0), (.nan, 0), (10, 10)])]]))
        #expect(out.isEmpty && out.nonFiniteCoordinates == 1 && out.droppedPolygons == 1)
    }

    @Test func bowtieNeedsRepair() {
        let bowtie = ring([(0, 0), (10, 10), (10, 0), (0, 10)])
        let out = q.quantizePolygons(Geometry.polygons([[bowtie]]))
        #expect(out.needsRepair)
        #expect(!RingValidator.isSimple(pts([(0, 0), (10, 10), (10, 0), (0, 10)])))
    }

    @Test func snappingThatMakesHolesTouchNeedsRepair() {
        // Two holes 0.2 apart in float coordinates share an edge after rounding.
        let ext = ring([(0, 0), (100, 0), (100, 100), (0, 100)])
        let h1 = ring([(10, 10), (10, 40), (49.6, 40), (49.6, 10)])
        let h2 = ring([(50.4, 10), (50.4, 40), (90, 40), (90, 10)])
        let before = q.quantizePolygons(Geometry.polygons([[ext, ring([(10, 10), (10, 40), (45, 40), (45, 10)]), h2]]))
        #expect(!before.needsRepair)
        let out = q.quantizePolygons(Geometry.polygons([[ext, h1, h2]]))
        #expect(out.polygons[0].count == 3)
        #expect(out.needsRepair)
    }

    @Test func holeOutsideExteriorNeedsRepair() {
        let ext = ring([(0, 0), (10, 0), (10, 10), (0, 10)])
        let hole = ring([(20, 20), (20, 30), (30, 30), (30, 20)])
        #expect(q.quantizePolygons(Geometry.polygons([[ext, hole]])).needsRepair)
    }

    @Test func linesAndPoints() {
        let lines = q.quantizeLines(Geometry.lines([[0, 0, 0.2, 0.3, 10, 10], [5, 5, 5.2, 5.3], [1, 1, .infinity, 2]]))
        #expect(lines.parts == [pts([(0, 0), (10, 10)])])
        #expect(lines.droppedParts == 2)
        #expect(lines.nonFiniteCoordinates == 1)
        #expect(lines.commands == [9, 0, 0, 10, 20, 20])
        let points = q.quantizePoints(Geometry(kind: .multiPoint, xy: [25.4, 16.6, .nan, 1, 25, 17], partStarts: [0]))
        #expect(points.points == pts([(25, 17), (25, 17)]))
        #expect(points.nonFiniteCoordinates == 1)
        #expect(points.commands == [17, 50, 34, 0, 0])
    }
}

@Suite struct RingValidatorTests {
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
