import GeometryAlgorithms
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
        #expect(
            q.snap(x: 1e12, y: -1e12, clamped: &clamped)
                == TilePoint(Quantizer.coordinateLimit, -Quantizer.coordinateLimit))
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
        let again = q.quantizePolygons(
            Geometry.polygons([
                [
                    ring(out.polygons[0][0].map { (Double($0.x), Double($0.y)) }),
                    ring(out.polygons[0][1].map { (Double($0.x), Double($0.y)) }),
                ]
            ]))
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
        let withTinyHole = [
            ring([(0, 0), (50, 0), (50, 50), (0, 50)]), ring([(10.1, 10.1), (10.2, 10.3), (10.3, 10.1)]),
        ]
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
        let before = q.quantizePolygons(
            Geometry.polygons([[ext, ring([(10, 10), (10, 40), (45, 40), (45, 10)]), h2]]))
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
        let lines = q.quantizeLines(
            Geometry.lines([[0, 0, 0.2, 0.3, 10, 10], [5, 5, 5.2, 5.3], [1, 1, .infinity, 2]]))
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
