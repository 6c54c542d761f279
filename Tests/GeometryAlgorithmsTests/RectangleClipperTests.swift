import KartpackCore
import GeometryAlgorithms
import Testing

@Suite struct RectangleClipperTests {
    let rect = Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10)

    @Test func ringsKeepThePartInsideWithExactArea() {
        // A diamond centred on the rectangle's corner: a quarter of its area (50) lies inside.
        let diamond = [Point2(x: -5, y: 0), Point2(x: 0, y: -5), Point2(x: 5, y: 0), Point2(x: 0, y: 5)]
        let clipped = RectangleClipper.clipRing(diamond, to: rect)
        #expect(abs(RectangleClipper.area(clipped)) == 12.5)
        #expect(clipped.allSatisfy { $0.x >= 0 && $0.y >= 0 })
        // Wholly inside: unchanged (a closing point is dropped); wholly outside: empty.
        let inner = [Point2(x: 1, y: 1), Point2(x: 2, y: 1), Point2(x: 2, y: 2), Point2(x: 1, y: 1)]
        #expect(RectangleClipper.clipRing(inner, to: rect) == Array(inner.dropLast()))
        #expect(RectangleClipper.clipRing(inner.map { Point2(x: $0.x + 50, y: $0.y) }, to: rect).isEmpty)
    }

    @Test func theFlatPassKeepsDegenerateEdgesSoMomentsStayExact() {
        // A U shape whose arms leave the rectangle: the flat pass keeps edges along the border.
        var xy: [Double] = [2, 5, 2, 20, 4, 20, 4, 8, 6, 8, 6, 20, 8, 20, 8, 5]
        var scratch: [Double] = []
        RectangleClipper.clip(ring: &xy, scratch: &scratch, to: rect)
        var area = 0.0
        let n = xy.count / 2
        for i in 0..<n {
            let j = (i + 1) % n
            area += xy[2 * i] * xy[2 * j + 1] - xy[2 * j] * xy[2 * i + 1]
        }
        // Inside: 6 × 5 minus the notch 2 × 2.
        #expect(abs(area / 2) == 26)
        #expect(xy.allSatisfy { $0 >= 0 && $0 <= 10 })
    }

    @Test func linesAreCutWhereTheyLeaveAndEnter() {
        let line = [
            Point2(x: -5, y: 5), Point2(x: 5, y: 5), Point2(x: 15, y: 5), Point2(x: 15, y: 8), Point2(x: 5, y: 8),
        ]
        let parts = RectangleClipper.clipLine(line, to: rect)
        #expect(
            parts == [
                [Point2(x: 0, y: 5), Point2(x: 5, y: 5), Point2(x: 10, y: 5)],
                [Point2(x: 10, y: 8), Point2(x: 5, y: 8)],
            ])
        #expect(RectangleClipper.clipSegment(Point2(x: -1, y: -1), Point2(x: -1, y: 20), rect) == nil)
    }
}
