import GeometryAlgorithms
import KartpackCore
import KartpackTestSupport
import Testing

/// `RectangleClipper.clipPolygons` with per-polygon boxes (the fast paths the tile descent uses on sliver soups):
/// polygons strictly outside are skipped and polygons strictly inside copied without a walk, with exactly the
/// result of the plain clip.
@Suite struct PolygonClipBoxesTests {
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func boxesChangeNothing(_ seed: UInt64) {
        let g = PolygonSoup.make(seed: seed, count: 400)
        let boxes = RectangleClipper.polygonBoxes(g)
        #expect(boxes.count == g.polygonCount)
        for r in [
            Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10), Bounds(minX: -2, minY: 3, maxX: 4, maxY: 12),
            Bounds(minX: 20, minY: 20, maxX: 30, maxY: 30), Bounds(minX: -10, minY: -10, maxX: 20, maxY: 20),
        ] {
            let plain = RectangleClipper.clipPolygons(g, to: r, cancellation: .never)
            let boxed = RectangleClipper.clipPolygons(g, to: r, boxes: boxes, cancellation: .never)
            switch (plain, boxed) {
            case (.polygons(let a), .polygons(let b)): #expect(a == b, "rect \(r)")
            case (.empty, .empty): break
            default: Issue.record("rect \(r): \(plain) vs \(boxed)")
            }
        }
    }

    @Test func boxesCoverEveryRingOfTheirPolygon() {
        let g = Geometry.polygons([
            [PolygonClipTests.box(0, 0, 10, 10), PolygonClipTests.box(2, 2, 3, 3)],
            [PolygonClipTests.box(-4, 5, -1, 7)],
        ])
        #expect(
            RectangleClipper.polygonBoxes(g) == [
                Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10), Bounds(minX: -4, minY: 5, maxX: -1, maxY: 7),
            ])
    }

    /// Boxes that do not match the polygons (a caller's mistake) are ignored rather than trusted.
    @Test func boxesOfTheWrongCountAreIgnored() {
        let g = Geometry.polygons([[PolygonClipTests.box(-5, -5, 5, 5)]])
        let r = Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10)
        let wrong = [Bounds(minX: 100, minY: 100, maxX: 101, maxY: 101), Bounds.empty]
        guard case .polygons(let a) = RectangleClipper.clipPolygons(g, to: r, cancellation: .never),
            case .polygons(let b) = RectangleClipper.clipPolygons(g, to: r, boxes: wrong, cancellation: .never)
        else {
            Issue.record("expected polygons")
            return
        }
        #expect(a == b)
    }
}
