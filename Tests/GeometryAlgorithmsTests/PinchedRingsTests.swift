import Testing
import GeometryAlgorithms

private func pts(_ coords: [(Int32, Int32)]) -> [TilePoint] { coords.map { TilePoint($0.0, $0.1) } }

/// `ring` turned so that its `doubledSignedArea` has the sign of `sign`.
private func oriented(_ ring: [TilePoint], _ sign: Int128 = 1) -> [TilePoint] {
    doubledSignedArea(ring) * sign > 0 ? ring : ring.reversed()
}

/// `ring` started at `p`, one of its vertices.
private func from(_ p: TilePoint, _ ring: [TilePoint]) -> [TilePoint] {
    let i = ring.firstIndex(of: p)!
    return Array(ring[i...] + ring[..<i])
}

/// Rings that rounding to the grid closed at one point (`PinchedRings`): cut there into loops, which become
/// polygons touching at the point or holes touching their exterior.
@Suite struct PinchedRingsTests {
    let pinch = TilePoint(100, 100)

    @Test func aFigureEightBecomesTwoPolygonsTouchingAtThePinch() throws {
        let a = oriented(pts([(100, 100), (200, 100), (200, 200)]))
        let b = oriented(pts([(100, 100), (0, 100), (0, 0)]))
        let ring = from(pinch, a) + from(pinch, b)
        let out = try #require(PinchedRings.split([[ring]]))
        #expect(out.count == 2 && out.allSatisfy { $0.count == 1 && doubledSignedArea($0[0]) > 0 })
        #expect(Set(out.map { Set($0[0]) }) == [Set(a), Set(b)])
    }

    @Test func aLoopTurningTheOtherWayInsideIsAHoleTouchingTheExterior() throws {
        let outer = oriented(pts([(100, 100), (0, 0), (400, 0), (400, 400), (0, 400)]))
        let inner = oriented(pts([(100, 100), (200, 150), (150, 200)]), -1)
        let out = try #require(PinchedRings.split([[from(pinch, outer) + from(pinch, inner)]]))
        #expect(out.count == 1 && out[0].count == 2)
        #expect(Set(out[0][0]) == Set(outer) && Set(out[0][1]) == Set(inner))
        #expect(doubledSignedArea(out[0][1]) < 0)
    }

    @Test func aZeroAreaLoopIsDroppedAndASimpleRingIsNoSplit() throws {
        let a = oriented(pts([(100, 100), (200, 100), (200, 200)]))
        // Out to (50, 50) and back: a loop of two points, no area.
        let spur = pts([(100, 100), (50, 50)])
        let out = try #require(PinchedRings.split([[from(pinch, a) + spur]]))
        #expect(out.count == 1 && Set(out[0][0]) == Set(a))
        #expect(PinchedRings.split([[a]]) == nil)
    }

    @Test func aHoleLoopTurningLikeAnExteriorIsNotResolvedHere() {
        let exterior = oriented(pts([(0, 0), (1000, 0), (1000, 1000), (0, 1000)]))
        let a = oriented(pts([(100, 100), (200, 100), (200, 200)]), -1)
        let b = oriented(pts([(100, 100), (150, 50), (50, 50)]), 1)
        #expect(PinchedRings.split([[exterior, from(pinch, a) + from(pinch, b)]]) == nil)
    }
}
