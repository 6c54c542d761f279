import KartpackCore
import Testing

@testable import GeometryOps

@Suite struct MakeValidTests {
    @Test func bowtieBecomesTwoTrianglesNotOne() throws {
        let engine = GeometryEngine()
        // Each lobe of the bowtie (0 0, 2s 2s, 2s 0, 0 2s) is a triangle with base 2s and height s: area s².
        // STRUCTURE keeps both (2s²); buffer(0) would keep one (s²).
        for scale in [1.0, 3.0, 1000.0] {
            let input = try engine.prepare(TestShapes.bowtie(scale: scale))
            let fixed = try #require(try engine.makeValid(input, family: .polygon))
            #expect(try engine.isValid(fixed))
            let g = try #require(try engine.geometry(fixed))
            #expect(g.kind == .multiPolygon)
            #expect(g.polygonCount == 2)
            let expectedLobe = scale * scale
            #expect(abs(TestShapes.area(g) - 2 * expectedLobe) < 1e-9 * expectedLobe)
            for j in 0..<2 {
                let ring = g.pointRange(ofPart: g.partRange(ofPolygon: j).lowerBound)
                let a = abs(signedRingArea(g.xy[(2 * ring.lowerBound)..<(2 * ring.upperBound)]))
                #expect(abs(a - expectedLobe) < 1e-9 * expectedLobe)
            }
        }
    }

    @Test func spikeGivesACleanPolygon() throws {
        let engine = GeometryEngine()
        // A square with an outward spike along y = 5 from x = 10 to 15 and a zero-area "hole" that is a spike.
        let shell = TestShapes.ring([(0, 0), (10, 0), (10, 5), (15, 5), (10, 5), (10, 10), (0, 10)])
        let spikeHole = TestShapes.ring([(2, 5), (5, 5), (8, 5)])
        let input = try engine.prepare(.polygons([[shell, spikeHole]]))
        #expect(try engine.isValid(input) == false)
        let fixed = try #require(try engine.makeValid(input, family: .polygon))
        let g = try #require(try engine.geometry(fixed))
        #expect(g.kind == .polygon)
        #expect(TestShapes.area(g) == 100)
        #expect(try engine.isValid(fixed))
    }

    @Test func overlappingPartsAreUnioned() throws {
        let engine = GeometryEngine()
        // Two overlapping squares in one multipolygon: STRUCTURE unions them (LINEWORK would cut the overlap out).
        let g = Geometry.polygons([[TestShapes.rectRing(0, 0, 10, 10)], [TestShapes.rectRing(5, 5, 15, 15)]])
        let fixed = try #require(try engine.makeValid(engine.prepare(g), family: .polygon))
        #expect(try engine.area(fixed) == 100 + 100 - 25)
    }

    @Test func familyFilterDropsLowerDimensions() throws {
        let engine = GeometryEngine()
        let a = try engine.prepare(.polygons([[TestShapes.rectRing(0, 0, 10, 10)]]))
        // Overlaps a on [5,10]x[0,10] and touches it along x = 0 with a second part.
        let b = try engine.prepare(
            .polygons([[TestShapes.rectRing(5, 0, 15, 10)], [TestShapes.rectRing(-5, 20, 0, 30)]]))
        let c = try engine.prepare(.polygons([[TestShapes.rectRing(-5, 0, 0, 10)]]))
        let polygonal = try #require(try engine.intersection(a, b))
        #expect(try engine.geometry(polygonal)?.kind == .polygon)
        #expect(try engine.area(polygonal) == 50)
        // Touching along an edge: no polygon, one line of length 10.
        #expect(try engine.intersection(a, c, family: .polygon) == nil)
        let edge = try #require(try engine.intersection(a, c, family: .line))
        let line = try #require(try engine.geometry(edge))
        #expect(line.kind == .lineString)
        #expect(line.xy.count == 4 && abs(line.xy[1] - line.xy[3]) == 10 && line.xy[0] == 0 && line.xy[2] == 0)
    }
}
