import KartpackCore
import Testing

@testable import GeometryOps

@Suite struct GeometryConversionTests {
    let shapes: [Geometry] = [
        .point(x: 1.5, y: -2.25),
        Geometry(kind: .multiPoint, xy: [0, 0, 1, 1, 2, 3], partStarts: [0]),
        .lines([[0, 0, 1, 1, 2, 0]]),
        .lines([[0, 0, 1, 1], [5, 5, 6, 7, 8, 9]]),
        .polygons([[TestShapes.rectRing(0, 0, 10, 10)]]),
        .polygons([[TestShapes.rectRing(0, 0, 10, 10), TestShapes.rectRing(2, 2, 4, 4).reversedPairs()]]),
        .polygons([
            [
                TestShapes.rectRing(0, 0, 10, 10), TestShapes.rectRing(2, 2, 4, 4).reversedPairs(),
                TestShapes.rectRing(6, 6, 8, 8).reversedPairs(),
            ],
            [TestShapes.rectRing(20, 0, 30, 10)],
            [TestShapes.rectRing(40, 0, 50, 10), TestShapes.rectRing(41, 1, 42, 2).reversedPairs()],
        ]),
    ]

    @Test func roundTripsEveryKind() throws {
        let engine = GeometryEngine()
        for shape in shapes {
            let h = try engine.prepare(shape)
            let back = try #require(try engine.geometry(h))
            #expect(back == shape, "\(shape.kind)")
            #expect(h.family == shape.kind.family)
        }
    }

    @Test func emptyGeometriesComeBackNil() throws {
        let engine = GeometryEngine()
        for kind in GeometryKind.allCases {
            let h = try engine.prepare(Geometry(kind: kind, xy: [], partStarts: []))
            #expect(try engine.isEmpty(h))
            #expect(h.family == nil)
            #expect(try engine.geometry(h) == nil)
        }
    }

    @Test func area() throws {
        let engine = GeometryEngine()
        let square = try engine.prepare(shapes[5])
        #expect(try engine.area(square) == 100 - 4)
        let line = try engine.prepare(.lines([[0, 0, 3, 4]]))
        #expect(try engine.area(line) == 0)
    }

    @Test func rejectsNonFiniteCoordinatesBeforeGEOS() {
        let engine = GeometryEngine()
        // The ring is also unclosed: the coordinate check must run first, in Swift, before any structural or
        // GEOS work.
        let cases: [(Double, GeometryError)] = [
            (.nan, .nonFinite(pointIndex: 2)), (.infinity, .nonFinite(pointIndex: 2)),
            (-.infinity, .nonFinite(pointIndex: 2)), (1e301, .outOfRange(pointIndex: 2)),
            (-1.7e308, .outOfRange(pointIndex: 2)),
        ]
        for (bad, expected) in cases {
            let g = Geometry.polygons([[[0, 0, 1, 0, bad, 1, 0, 1]]])
            #expect(throws: expected) { try engine.prepare(g) }
            #expect(throws: expected) { try GeometryEngine.checkCoordinates(g) }
        }
        #expect(throws: GeometryError.nonFinite(pointIndex: 0)) { try engine.prepare(.point(x: 0, y: .nan)) }
        #expect(GeometryError.nonFinite(pointIndex: 0).diagnosticCode == .nonFiniteCoordinate)
        #expect(GeometryError.outOfRange(pointIndex: 0).diagnosticCode == .outOfDomain)
        // Nothing reached GEOS, so no GEOS message was recorded.
        #expect(engine.messages.error == nil)
    }

    @Test func rejectsMalformedStructure() {
        let engine = GeometryEngine()
        let bad: [Geometry] = [
            .polygons([[[0, 0, 1, 0, 1, 1, 0, 1]]]),  // not closed
            .polygons([[[0, 0, 1, 0, 0, 0]]]),  // three points
            .lines([[0, 0]]),  // one-point line
            Geometry(kind: .lineString, xy: [0, 0, 1, 1, 2, 2], partStarts: [0, 5]),  // offset beyond points
            Geometry(kind: .lineString, xy: [0, 0, 1, 1, 2, 2], partStarts: [1]),  // does not start at 0
            Geometry(kind: .point, xy: [0, 0, 1, 1], partStarts: [0]),  // point with two coordinates
            Geometry(kind: .polygon, xy: [0, 0, 1], partStarts: [0]),  // odd value count
            Geometry(kind: .polygon, xy: TestShapes.rectRing(0, 0, 1, 1), partStarts: [0], polygonStarts: []),
        ]
        for g in bad {
            #expect(throws: GeometryError.self) { try engine.prepare(g) }
            do {
                _ = try engine.prepare(g)
            } catch {
                #expect(error.diagnosticCode == .malformedGeometry, "\(g)")
            }
        }
    }

    @Test func validityReasonQuotesGEOS() throws {
        let engine = GeometryEngine()
        let bowtie = try engine.prepare(TestShapes.bowtie())
        #expect(try engine.isValid(bowtie) == false)
        #expect(try engine.validityReason(bowtie).hasPrefix("Self-intersection"))
        let square = try engine.prepare(shapes[4])
        #expect(try engine.isValid(square))
        #expect(try engine.validityReason(square) == "Valid Geometry")
    }

    @Test func pointOnSurfaceLiesInsideAUShape() throws {
        let engine = GeometryEngine()
        let u = Geometry.polygons([
            [TestShapes.ring([(0, 0), (30, 0), (30, 30), (20, 30), (20, 10), (10, 10), (10, 30), (0, 30)])]
        ])
        let p = try #require(try engine.pointOnSurface(engine.prepare(u)))
        #expect(TestShapes.contains(u, x: p.x, y: p.y))
        #expect(try engine.pointOnSurface(engine.prepare(Geometry(kind: .polygon, xy: [], partStarts: []))) == nil)
    }
}

extension Array where Element == Double {
    /// The interleaved points in reverse order (turns a CCW ring into a CW one).
    func reversedPairs() -> [Double] {
        stride(from: count - 2, through: 0, by: -2).flatMap { [self[$0], self[$0 + 1]] }
    }
}
