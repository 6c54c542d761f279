import Foundation
import KartpackCore
import Testing

@testable import GeometryOps

@Suite struct SimplifyTests {
    /// A 400-vertex wobbly disc of radius ~100 with two holes.
    static func discWithHoles() -> Geometry {
        let radii = (0..<400).map { 100 + 0.3 * sin(Double($0) * 1.7) }
        let shell = TestShapes.starRing(cx: 0, cy: 0, radii: radii)
        let hole1 = TestShapes.starRing(cx: -40, cy: 0, radii: Array(repeating: 15, count: 60)).reversedPairs()
        let hole2 = TestShapes.starRing(cx: 40, cy: 10, radii: Array(repeating: 20, count: 60)).reversedPairs()
        return .polygons([[shell, hole1, hole2]])
    }

    @Test func keepsHolesAndValidity() throws {
        let engine = GeometryEngine()
        let input = Self.discWithHoles()
        let result = try engine.simplify(engine.prepare(input), tolerance: 1, preserveTopology: true)
        #expect(result.fallback == .none)
        let simplified = try #require(result.geometry)
        #expect(try engine.isValid(simplified))
        let g = try #require(try engine.geometry(simplified))
        #expect(g.kind == .polygon)
        #expect(g.partCount == 3)
        #expect(g.pointCount < input.pointCount / 4)
        #expect(abs(TestShapes.area(g) - TestShapes.area(input)) < 0.03 * TestShapes.area(input))
    }

    @Test func geos857FallsBack() throws {
        let engine = GeometryEngine()
        // GEOS #857: TPS at tolerance 10 cuts off the part holding the hole -> "Hole lies outside shell".
        let input = Geometry.polygons([
            [
                TestShapes.ring([(3, 15), (6, 10), (1, 3), (5, 2), (0, 0)]),
                TestShapes.ring([(4, 13), (3, 14), (3, 13)]),
            ]
        ])
        let h = try engine.prepare(input)
        #expect(try engine.isValid(h))
        let result = try engine.simplify(h, tolerance: 10)
        #expect(result.fallback != .none)
        let simplified = try #require(result.geometry)
        #expect(try engine.isValid(simplified))
    }

    @Test func geos1016FallsBack() throws {
        let engine = GeometryEngine()
        // GEOS #1016: the hole near the (2.2, 1) bump ends up outside the simplified shell.
        let input = Geometry.polygons([
            [
                TestShapes.ring([(0, 0), (2, 0), (2.2, 1), (2, 2), (0, 2)]),
                TestShapes.ring([(2.1, 0.9), (2.15, 1), (2.1, 1.1)]),
            ]
        ])
        let h = try engine.prepare(input)
        #expect(try engine.isValid(h))
        let result = try engine.simplify(h, tolerance: 2)
        #expect(result.fallback != .none)
        let simplified = try #require(result.geometry)
        #expect(try engine.isValid(simplified))
        #expect(try engine.area(simplified) > 3.5)
    }

    @Test func invalidInputEndsInMakeValid() throws {
        let engine = GeometryEngine()
        // TPS keeps a bowtie's self-intersection at any tolerance, so both tries are invalid.
        let result = try engine.simplify(engine.prepare(TestShapes.bowtie(scale: 10)), tolerance: 0.1)
        #expect(result.fallback == .madeValid)
        let fixed = try #require(result.geometry)
        #expect(try engine.isValid(fixed))
        #expect(abs(try engine.area(fixed) - 200) < 1e-9)
    }

    @Test func douglasPeuckerOnLines() throws {
        let engine = GeometryEngine()
        let line = Geometry.lines([[0, 0, 1, 0.1, 2, -0.1, 3, 0.05, 4, 0]])
        let result = try engine.simplify(engine.prepare(line), tolerance: 0.5, preserveTopology: false)
        #expect(result.fallback == .none)
        let simplified = try #require(result.geometry)
        #expect(try engine.geometry(simplified) == .lines([[0, 0, 4, 0]]))
    }

    @Test func rejectsUnusableTolerances() throws {
        let engine = GeometryEngine()
        let h = try engine.prepare(Self.discWithHoles())
        for t in [Double.nan, .infinity, -1, 1e305] {
            #expect(throws: GeometryError.self) { try engine.simplify(h, tolerance: t) }
        }
    }

    @Test func snapToGridCollapsesSubPixelPolygons() throws {
        let engine = GeometryEngine()
        let tiny = try engine.prepare(.polygons([[TestShapes.rectRing(0.1, 0.1, 0.4, 0.4)]]))
        #expect(try engine.snapToGrid(tiny, gridSize: 1) == nil)

        let square = try engine.prepare(.polygons([[TestShapes.rectRing(0.2, 0.3, 10.4, 9.6)]]))
        let snapped = try #require(try engine.snapToGrid(square, gridSize: 1))
        let g = try #require(try engine.geometry(snapped))
        #expect(g.xy.allSatisfy { $0 == $0.rounded() })
        #expect(TestShapes.area(g) == 100)

        #expect(throws: GeometryError.self) { try engine.snapToGrid(square, gridSize: 0) }
    }
}
