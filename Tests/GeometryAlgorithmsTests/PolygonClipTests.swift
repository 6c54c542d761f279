import Foundation
import GeometryAlgorithms
import KartpackCore
import Testing

/// `RectangleClipper.clipPolygons` on hand-made shapes (the comparison with GEOS on random polygons is in
/// GeometryOpsTests/PolygonClipAgainstGEOSTests).
@Suite struct PolygonClipTests {
    let rect = Bounds(minX: 0, minY: 0, maxX: 10, maxY: 10)

    /// Closed ring from (x, y) pairs.
    static func ring(_ points: [(Double, Double)]) -> [Double] {
        points.flatMap { [$0.0, $0.1] } + [points[0].0, points[0].1]
    }

    static func box(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [Double] {
        ring([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    }

    /// The polygons of a clip result as rings of points (open), or nil when it is not `.polygons`.
    static func rings(_ result: PolygonClip) -> [[[Point2]]]? {
        guard case .polygons(let g) = result else { return nil }
        return (0..<g.polygonCount).map { j in
            g.partRange(ofPolygon: j).map { part in
                let r = g.pointRange(ofPart: part)
                #expect(g.point(r.lowerBound) == g.point(r.upperBound - 1), "rings are closed")
                return r.dropLast().map { Point2(x: g.point($0).x, y: g.point($0).y) }
            }
        }
    }

    /// Shells minus holes; also checks the orientation (exteriors counter-clockwise, holes clockwise) and that
    /// every point lies in the rectangle.
    func area(_ result: PolygonClip) -> Double {
        guard let polygons = Self.rings(result) else { return 0 }
        var total = 0.0
        for polygon in polygons {
            for (k, ring) in polygon.enumerated() {
                let a = RectangleClipper.area(ring)
                #expect(k == 0 ? a > 0 : a < 0, "ring \(k) has signed area \(a)")
                #expect(
                    ring.allSatisfy { rect.minX <= $0.x && $0.x <= rect.maxX && rect.minY <= $0.y && $0.y <= rect.maxY }
                )
                // No vertex twice in a ring (a self-touching ring is invalid for OGC and MVT).
                #expect(Set(ring).count == ring.count, "ring \(k) repeats a vertex: \(ring)")
                total += a
            }
        }
        return total
    }

    func clip(_ polygons: [[[Double]]], to r: Bounds? = nil) -> PolygonClip {
        RectangleClipper.clipPolygons(.polygons(polygons), to: r ?? rect, cancellation: .never)
    }

    @Test func aSquareAcrossOneSideKeepsTheInsidePart() {
        let result = clip([[Self.box(5, 2, 15, 8)]])
        #expect(area(result) == 30)
        #expect(Self.rings(result)?.count == 1)
        // Clockwise input gives the same answer.
        let reversed = Self.ring([(5, 2), (5, 8), (15, 8), (15, 2)])
        #expect(area(clip([[reversed]])) == 30)
    }

    @Test func aConcaveShapeFallsApartIntoItsArms() {
        // A U whose bottom lies above the rectangle and whose arms reach down into it: two pieces.
        let u = Self.ring([(2, 5), (4, 5), (4, 12), (6, 12), (6, 5), (8, 5), (8, 14), (2, 14)])
        let result = clip([[u]])
        #expect(Self.rings(result)?.count == 2)
        #expect(area(result) == 2 * 2 * 5)
    }

    @Test func aSpiralCrossingTheSidesManyTimes() {
        // A thick square spiral centred on (10, 10), the rectangle's corner: every turn crosses two sides.
        var points: [(Double, Double)] = []
        var inner: [(Double, Double)] = []
        let turns = 6
        for k in 0..<(4 * turns) {
            let a = Double.pi / 2 * Double(k)
            let r = 1 + Double(k) * 0.75
            points.append((10 + r * cos(a) * 1.4, 10 + r * sin(a) * 1.4))
            inner.append((10 + (r - 0.5) * cos(a) * 1.4, 10 + (r - 0.5) * sin(a) * 1.4))
        }
        let shape = Self.ring(points + inner.reversed())
        let result = clip([[shape]])
        let expected = sutherlandHodgmanArea(shape)
        #expect(abs(area(result) - expected) < 1e-9)
        #expect((Self.rings(result)?.count ?? 0) > 1)
    }

    @Test func aHoleCrossingASideBecomesPartOfTheExterior() {
        let result = clip([[Self.box(-5, -5, 15, 15), Self.box(8, 4, 12, 6)]])
        let polygons = Self.rings(result)
        #expect(polygons?.count == 1)
        #expect(polygons?.first?.count == 1, "no hole left: it opens onto the right side")
        #expect(area(result) == 100 - 2 * 2)
    }

    @Test func aHoleWhollyInsideStaysAHole() {
        let result = clip([[Self.box(-5, -5, 5, 15), Self.box(1, 1, 2, 2), Self.box(20, 20, 21, 21)]])
        let polygons = Self.rings(result)
        #expect(polygons?.count == 1)
        #expect(polygons?.first?.count == 2)
        #expect(area(result) == 50 - 1)
    }

    @Test func holesGoToThePieceThatHoldsThem() {
        // A U whose two arms reach into the rectangle, each arm with a hole wholly inside.
        let u = Self.ring([(1, 1), (4, 1), (4, 12), (6, 12), (6, 1), (9, 1), (9, 14), (1, 14)])
        let result = clip([[u, Self.box(2, 2, 3, 3), Self.box(7, 7, 8, 8)]])
        let polygons = Self.rings(result)
        #expect(polygons?.count == 2)
        #expect(polygons?.allSatisfy { $0.count == 2 } == true)
        #expect(area(result) == 2 * (3 * 9) - 2)
    }

    @Test func ringsOnTheBoundary() {
        // Exactly the rectangle, one sharing the bottom side, one running along a side from outside.
        #expect(area(clip([[Self.box(0, 0, 10, 10)]])) == 100)
        #expect(area(clip([[Self.box(2, 0, 4, 3)]])) == 6)
        #expect(area(clip([[Self.box(2, -3, 4, 0)]])) == 0)
        guard case .empty = clip([[Self.box(2, -3, 4, 0)]]) else {
            Issue.record("touching along a side leaves no area")
            return
        }
        // Touching at a corner only, and a ring going in and out along a side.
        guard case .empty = clip([[Self.box(10, 10, 12, 12)]]) else {
            Issue.record("touching at a corner leaves no area")
            return
        }
        let comb = Self.ring([(1, -2), (9, -2), (9, 0), (7, 0), (7, 3), (5, 3), (5, 0), (3, 0), (3, 3), (1, 3)])
        let result = clip([[comb]])
        #expect(area(result) == 2 * 2 * 3)
        #expect(Self.rings(result)?.count == 2)
    }

    @Test func aRingCoveringTheRectangleGivesTheRectangle() {
        #expect(area(clip([[Self.box(-5, -5, 15, 15)]])) == 100)
        // With a hole inside, a hole around the rectangle (nothing left), and an island in a hole.
        #expect(area(clip([[Self.box(-5, -5, 15, 15), Self.box(4, 4, 6, 6)]])) == 96)
        guard case .empty = clip([[Self.box(-20, -20, 30, 30), Self.box(-5, -5, 15, 15)]]) else {
            Issue.record("a hole around the rectangle leaves nothing")
            return
        }
        let island = clip([[Self.box(-20, -20, 30, 30), Self.box(-5, -5, 15, 15)], [Self.box(3, 3, 4, 5)]])
        #expect(area(island) == 2)
    }

    @Test func vNotchTouchingTheBottomGivesTwoTriangles() {
        // GEOS PR #605: GEOSClipByRect returned the complement. The notch's tip touches the bottom side.
        let r = Bounds(minX: 30, minY: 20, maxX: 70, maxY: 40)
        let v = Self.ring([(10, 0), (10, 60), (50, 20), (90, 60), (90, 0)])
        let result = clip([[v]], to: r)
        let polygons = Self.rings(result)
        #expect(polygons?.count == 2)
        #expect(abs(areaIn(result, r) - 400) < 1e-9)
    }

    @Test func aHoleTouchingTheBoundaryFromInsideStaysAHole() {
        // A triangular hole whose tip touches the bottom side: the rectangle with a hole touching it.
        let result = clip([[Self.box(-5, -5, 15, 15), Self.ring([(5, 0), (8, 5), (2, 5)])]])
        let polygons = Self.rings(result)
        #expect(polygons?.count == 1)
        #expect(polygons?.first?.count == 2)
        #expect(area(result) == 100 - 15)
        // An island touching the side from inside, and one touching a corner.
        #expect(area(clip([[Self.ring([(5, 0), (8, 5), (2, 5)])]])) == 15)
        #expect(area(clip([[Self.ring([(0, 0), (3, 1), (1, 3)])]])) == 4)
    }

    @Test func multiPolygonsTouchingOnTheBoundary() {
        // Two triangles meeting at (5, 0) on the bottom side, both reaching below it.
        let a = Self.ring([(2, -2), (5, 0), (2, 4)])
        let b = Self.ring([(8, -2), (8, 4), (5, 0)])
        let result = clip([[a], [b]])
        #expect(Self.rings(result)?.count == 2)
        #expect(abs(area(result) - 2 * sutherlandHodgmanArea(a)) < 1e-9)
    }

    @Test func degenerateInputLeavesNothing() {
        // A zero-area ring, a spike along a side, and an empty geometry.
        guard case .empty = clip([[Self.ring([(1, 1), (5, 5), (9, 9)])]]) else {
            Issue.record("zero area")
            return
        }
        guard case .empty = RectangleClipper.clipPolygons(Geometry.polygons([]), to: rect) else {
            Issue.record("empty input")
            return
        }
    }

    @Test func invalidInputIsReportedNotTrusted() {
        // A bowtie whose crossing lies inside: the crossings along the boundary do not pair up.
        let bowtie = Self.ring([(-5, 2), (15, 8), (15, 2), (-5, 8)])
        switch clip([[bowtie]]) {
        case .inconsistent, .polygons, .empty: break
        case .cancelled: Issue.record("not cancelled")
        }
    }

    @Test func aSetFlagStopsTheClip() {
        let flag = CancellationFlag()
        flag.cancel()
        var points: [(Double, Double)] = []
        for i in 0..<20_000 { points.append((Double(i) / 1000, i % 2 == 0 ? 12 : 8)) }
        points += [(20, -1), (0, -1)]
        let saw = Self.ring(points)
        guard case .cancelled = RectangleClipper.clipPolygons(.polygons([[saw]]), to: rect, cancellation: flag)
        else {
            Issue.record("the flag was set")
            return
        }
        // The same saw-tooth without the flag: 5 000 teeth cross the top side inside the rectangle.
        let result = clip([[saw]])
        #expect(abs(area(result) - sutherlandHodgmanArea(saw)) < 1e-6)
    }

    // MARK: Helpers

    /// The ring's area inside `rect` by Sutherland–Hodgman (exact for a simple ring, whatever its shape).
    func sutherlandHodgmanArea(_ ring: [Double], _ r: Bounds? = nil) -> Double {
        var pts: [Point2] = []
        for i in stride(from: 0, to: ring.count - 2, by: 2) { pts.append(Point2(x: ring[i], y: ring[i + 1])) }
        return abs(RectangleClipper.area(RectangleClipper.clipRing(pts, to: r ?? rect)))
    }

    func areaIn(_ result: PolygonClip, _ r: Bounds) -> Double {
        guard let polygons = Self.rings(result) else { return 0 }
        return polygons.reduce(0) { $0 + $1.reduce(0) { $0 + RectangleClipper.area($1) } }
    }
}
