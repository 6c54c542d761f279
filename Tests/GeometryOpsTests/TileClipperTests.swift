import KartpackCore
import Testing

@testable import GeometryOps

@Suite struct TileClipperTests {
    @Test func insideIsUnchangedOutsideIsNil() throws {
        let engine = GeometryEngine()
        let clipper = try TileClipper(engine: engine, rect: Bounds(minX: 0, minY: 0, maxX: 100, maxY: 100))
        let shape = Geometry.polygons([[TestShapes.rectRing(10, 10, 20, 20), TestShapes.rectRing(12, 12, 14, 14)]])
        let inside = try engine.prepare(shape)
        let clipped = try #require(try clipper.clip(inside))
        #expect(clipped === inside)
        #expect(try engine.geometry(clipped) == shape)

        #expect(try clipper.clip(engine.prepare(.polygons([[TestShapes.rectRing(200, 200, 210, 210)]]))) == nil)
        #expect(try clipper.clip(engine.prepare(.lines([[-10, -10, -5, 200]]))) == nil)
        #expect(try clipper.clip(engine.prepare(.point(x: 101, y: 50))) == nil)
        // Empty input never reaches ClipByRect (POINT EMPTY throws there).
        #expect(try clipper.clip(engine.prepare(Geometry(kind: .point, xy: [], partStarts: []))) == nil)
    }

    @Test func polygonWithHoleCrossingTheEdge() throws {
        let engine = GeometryEngine()
        // Square [0,10]² with hole [4,6]², clipped to x >= 5: the right half minus the hole's right half.
        let shape = Geometry.polygons([[TestShapes.rectRing(0, 0, 10, 10), TestShapes.rectRing(4, 4, 6, 6)]])
        let rect = Bounds(minX: 5, minY: -1, maxX: 20, maxY: 20)
        let clipper = try TileClipper(engine: engine, rect: rect)
        let clipped = try #require(try clipper.clip(engine.prepare(shape)))
        #expect(clipper.fallbackCount == 0)  // the Swift clip was right
        #expect(try engine.isValid(clipped))
        let expected = 5.0 * 10 - 1.0 * 2
        #expect(abs(try engine.area(clipped) - expected) < 1e-9)
        let g = try #require(try engine.geometry(clipped))
        #expect(g.kind == .polygon)
        #expect(g.bounds == Bounds(minX: 5, minY: 0, maxX: 10, maxY: 10))

        // A rectangle cutting through the hole's middle horizontally too: [5,20]x[5,20].
        let quarter = try #require(
            try engine.clip(engine.prepare(shape), to: Bounds(minX: 5, minY: 5, maxX: 20, maxY: 20)))
        #expect(abs(try engine.area(quarter) - (25 - 1)) < 1e-9)
    }

    @Test func geos605DoesNotGiveTheComplement() throws {
        let engine = GeometryEngine()
        // GEOS PR #605: a V-notched polygon whose notch touches the bottom of the rectangle (30,20,70,40) at
        // (50,20) and whose notch edges enter and leave at the top corners. GEOSClipByRect_r in 3.11 returns
        // the triangle (30 40, 50 20, 70 40), i.e. the complement, which is a valid polygon of the same area.
        // The right answer is the two triangles under the V: 2 * (20 * 20 / 2) = 400.
        let shape = Geometry.polygons([[TestShapes.ring([(10, 0), (10, 60), (50, 20), (90, 60), (90, 0)])]])
        let rect = Bounds(minX: 30, minY: 20, maxX: 70, maxY: 40)
        let input = try engine.prepare(shape)
        let clipper = try TileClipper(engine: engine, rect: rect)
        let clipped = try #require(try clipper.clip(input))
        #expect(clipper.fallbackCount == 0)  // the Swift clip gets it right; GEOSClipByRect_r is not asked
        let overlay = try #require(try engine.intersection(input, engine.rectangle(rect)))
        #expect(abs(try engine.area(clipped) - 400) < 1e-9)
        #expect(abs(try engine.area(clipped) - engine.area(overlay)) < 1e-9)
        let complement = try engine.prepare(.polygons([[TestShapes.ring([(30, 40), (50, 20), (70, 40)])]]))
        #expect(try engine.intersection(clipped, complement, family: .polygon) == nil)
        let g = try #require(try engine.geometry(clipped))
        #expect(TestShapes.contains(g, x: 35, y: 25))
        #expect(TestShapes.contains(g, x: 65, y: 25))
        #expect(!TestShapes.contains(g, x: 50, y: 35))
    }

    @Test func randomPolygonsMatchOverlay() throws {
        var rng = SplitMix64(seed: 7)
        let engine = GeometryEngine()
        let polygons = PolygonIndexTests.polygons(&rng)
        var clipped = 0
        for k in 0..<20 {
            let x = Double.random(in: 0...900, using: &rng)
            let y = Double.random(in: 0...900, using: &rng)
            let rect = Bounds(minX: x, minY: y, maxX: x + Double(50 + 10 * k), maxY: y + 120)
            let clipper = try TileClipper(engine: engine, rect: rect)
            let box = try engine.rectangle(rect)
            for p in polygons {
                let h = try engine.prepare(p)
                let fast = try clipper.clip(h)
                let exact = try engine.intersection(h, box, family: .polygon)
                #expect((fast == nil) == (exact == nil))
                if let fast, let exact {
                    #expect(abs(try engine.area(fast) - engine.area(exact)) < 1e-6)
                    #expect(try engine.isValid(fast))
                    // Same region, not merely the same area: their overlap is all of it.
                    let overlap = try #require(try engine.intersection(fast, exact, family: .polygon))
                    #expect(abs(try engine.area(overlap) - engine.area(exact)) < 1e-6)
                    clipped += 1
                }
            }
            // Valid star polygons never need the GEOS fallback: the moment check accepts the Swift answers.
            #expect(clipper.fallbackCount == 0)
        }
        #expect(clipped > 50)
    }

    @Test func linesBecomeMultiLines() throws {
        let engine = GeometryEngine()
        let clipper = try TileClipper(engine: engine, rect: Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10))
        // In, out above, back in: two pieces.
        let zigzag = try engine.prepare(.lines([[-5, 5, 5, 5, 5, 15, 8, 15, 8, 5, 15, 5]]))
        let zigzagClipped = try #require(try clipper.clip(zigzag))
        let g = try #require(try engine.geometry(zigzagClipped))
        #expect(g.kind == .multiLineString)
        #expect(g.partCount == 2)
        #expect(
            Array(g.xy[g.pointRange(ofPart: 0).lowerBound * 2..<g.pointRange(ofPart: 0).upperBound * 2]) == [
                0, 5, 5, 5, 5, 10,
            ])
        #expect(
            Array(g.xy[g.pointRange(ofPart: 1).lowerBound * 2..<g.pointRange(ofPart: 1).upperBound * 2]) == [
                8, 10, 8, 5, 10, 5,
            ])
        // One crossing: a single line.
        let singleClipped = try #require(try clipper.clip(engine.prepare(.lines([[-5, 5, 5, 5]]))))
        let single = try engine.geometry(singleClipped)
        #expect(single == .lines([[0, 5, 5, 5]]))
    }

    @Test func multiPointsKeepTheInsidePoints() throws {
        let engine = GeometryEngine()
        let clipper = try TileClipper(engine: engine, rect: Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10))
        let points = Geometry(kind: .multiPoint, xy: [1, 1, 20, 20, 5, 5, -3, 4], partStarts: [0])
        let pointsClipped = try #require(try clipper.clip(engine.prepare(points)))
        let g = try engine.geometry(pointsClipped)
        #expect(g == Geometry(kind: .multiPoint, xy: [1, 1, 5, 5], partStarts: [0]))
    }

    @Test func multiPolygonPartsOutsideAreDropped() throws {
        let engine = GeometryEngine()
        let shape = Geometry.polygons([
            [TestShapes.rectRing(-10, -10, 5, 5)], [TestShapes.rectRing(50, 50, 60, 60)],
            [TestShapes.rectRing(8, 8, 12, 12)],
        ])
        let clipped = try #require(
            try engine.clip(engine.prepare(shape), to: Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10)))
        let g = try #require(try engine.geometry(clipped))
        #expect(g.kind == .multiPolygon)
        #expect(g.polygonCount == 2)
        #expect(TestShapes.area(g) == 25 + 4)
    }

    @Test func rejectsDegenerateRectangles() {
        let engine = GeometryEngine()
        for rect in [
            Bounds(minX: 0, minY: 0, maxX: 0, maxY: 10), Bounds(minX: 0, minY: 0, maxX: .nan, maxY: 10),
            Bounds(minX: 0, minY: 0, maxX: .infinity, maxY: 10), Bounds.empty,
        ] {
            #expect(throws: GeometryError.self) { try TileClipper(engine: engine, rect: rect) }
        }
    }
}
