import GeometryAlgorithms
import KartpackCore
import Testing

@Suite struct DouglasPeuckerTests {
    @Test func removesPointsWithinTheToleranceAndKeepsEnds() {
        // A zig-zag whose middle points are 0.4 off the straight line, and one real corner.
        let line = Geometry(kind: .lineString, xy: [0, 0, 1, 0.4, 2, 0, 3, 0.4, 4, 0, 4, 5], partStarts: [0])
        let s = DouglasPeucker.simplified(line, tolerance: 0.5)
        #expect(s.xy == [0, 0, 4, 0, 4, 5])
        // Below the deviation nothing goes.
        #expect(DouglasPeucker.simplified(line, tolerance: 0.01).xy == line.xy)
        // Tolerance 0 and points are left alone.
        #expect(DouglasPeucker.simplified(line, tolerance: 0) == line)
        let points = Geometry(kind: .multiPoint, xy: [0, 0, 0.1, 0], partStarts: [0])
        #expect(DouglasPeucker.simplified(points, tolerance: 10) == points)
    }

    @Test func ringsStayClosedWithTheirFarthestPoint() {
        // A square with extra points on its edges; closed ring (first = last).
        let ring: [Double] = [0, 0, 5, 0.1, 10, 0, 10, 10, 5, 9.9, 0, 10, 0, 0]
        let g = Geometry(kind: .polygon, xy: ring, partStarts: [0])
        let s = DouglasPeucker.simplified(g, tolerance: 1)
        #expect(s.xy == [0, 0, 10, 0, 10, 10, 0, 10, 0, 0])
        #expect(s.partStarts == [0])
    }

    @Test func everyPartIsSimplifiedOnItsOwn() {
        let g = Geometry(
            kind: .multiLineString, xy: [0, 0, 1, 0.1, 2, 0, 10, 10, 11, 10.1, 12, 10], partStarts: [0, 3])
        let s = DouglasPeucker.simplified(g, tolerance: 0.5)
        #expect(s.xy == [0, 0, 2, 0, 10, 10, 12, 10])
        #expect(s.partStarts == [0, 2])
    }
}
