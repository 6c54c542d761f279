import KartpackCore
import Testing

@Suite struct TileGridTests {
    @Test func parseAcceptsValidAndRejectsMalformed() {
        #expect(TileCoordinate.parse("3/2/5") == TileCoordinate(z: 3, x: 2, y: 5))
        #expect(TileCoordinate.parse("0/0/0") == TileCoordinate(z: 0, x: 0, y: 0))
        for bad in [
            "", "1/2", "1/2/3/4", "1/2/x", "-1/0/0", "1/2/0", "1/0/2", "+1/0/0", " 1/0/0", "32/0/0", "1//0",
            "99999999999999999999/0/0",
        ] {
            #expect(TileCoordinate.parse(bad) == nil, "\(bad)")
        }
        #expect(TileCoordinate(z: 4, x: 3, y: 9).description == "4/3/9")
    }

    @Test func parentAndChildren() {
        let t = TileCoordinate(z: 5, x: 17, y: 10)
        #expect(t.parent == TileCoordinate(z: 4, x: 8, y: 5))
        #expect(TileCoordinate(z: 0, x: 0, y: 0).parent == nil)
        #expect(
            t.children == [
                TileCoordinate(z: 6, x: 34, y: 20), TileCoordinate(z: 6, x: 35, y: 20),
                TileCoordinate(z: 6, x: 34, y: 21), TileCoordinate(z: 6, x: 35, y: 21),
            ])
        for c in t.children { #expect(c.parent == t) }
        #expect(TileCoordinate(z: TileCoordinate.maxZoom, x: 0, y: 0).children.isEmpty)
        #expect(TileCoordinate(z: 3, x: 1, y: 1).tmsY == 6)
    }

    @Test func orderingIsZoomThenXThenY() {
        let tiles = [
            TileCoordinate(z: 1, x: 1, y: 0), TileCoordinate(z: 0, x: 0, y: 0), TileCoordinate(z: 1, x: 0, y: 1),
        ]
        #expect(
            tiles.sorted() == [
                TileCoordinate(z: 0, x: 0, y: 0), TileCoordinate(z: 1, x: 0, y: 1), TileCoordinate(z: 1, x: 1, y: 0),
            ])
    }

    @Test func tileBoundsFollowTheXYZGrid() {
        let h = SphericalMercator.halfWorld
        let world = SphericalMercator.bounds(of: TileCoordinate(z: 0, x: 0, y: 0))
        #expect(world == Bounds(minX: -h, minY: -h, maxX: h, maxY: h))
        // z1 x1 y0 is the north-east quadrant.
        let ne = SphericalMercator.bounds(of: TileCoordinate(z: 1, x: 1, y: 0))
        #expect(ne == Bounds(minX: 0, minY: 0, maxX: h, maxY: h))
        // At z14 a tile is about 2 446 m wide.
        #expect(abs(SphericalMercator.tileSize(zoom: 14) - 2445.984905) < 1e-5)
    }

    @Test func tileRangeCoversAndClamps() {
        let h = SphericalMercator.halfWorld
        // A box in the north-west quadrant at z1.
        let r = SphericalMercator.tileRange(
            covering: Bounds(minX: -h / 2, minY: h / 4, maxX: -h / 4, maxY: h / 2), zoom: 1)
        #expect(r == TileRange(z: 1, minX: 0, minY: 0, maxX: 0, maxY: 0))
        // Everything (and beyond) at z2 clamps to the grid.
        let all = SphericalMercator.tileRange(
            covering: Bounds(minX: -3 * h, minY: -3 * h, maxX: 3 * h, maxY: 3 * h), zoom: 2)
        #expect(all == TileRange(z: 2, minX: 0, minY: 0, maxX: 3, maxY: 3))
        #expect(all?.count == 16)
        #expect(all.map { Array($0) }?.first == TileCoordinate(z: 2, x: 0, y: 0))
        #expect(all.map { Array($0) }?[1] == TileCoordinate(z: 2, x: 1, y: 0))
        #expect(all.map { Array($0) }?.last == TileCoordinate(z: 2, x: 3, y: 3))
        #expect(SphericalMercator.tileRange(covering: .empty, zoom: 3) == nil)
        #expect(
            SphericalMercator.tileRange(covering: Bounds(minX: 3 * h, minY: 0, maxX: 4 * h, maxY: 1), zoom: 3) == nil)
        #expect(SphericalMercator.tileRange(covering: Bounds(minX: .nan, minY: 0, maxX: 1, maxY: 1), zoom: 3) == nil)
        // Tiles are half-open (west and north edges included): a point at the origin falls in z1 1/1/1 only.
        let origin = SphericalMercator.tileRange(covering: Bounds(minX: 0, minY: 0, maxX: 0, maxY: 0), zoom: 1)
        #expect(origin == TileRange(z: 1, minX: 1, minY: 1, maxX: 1, maxY: 1))
    }

    @Test func lonLatRoundTrip() {
        let p = SphericalMercator.project(lon: 180, lat: SphericalMercator.maxLatitude)
        #expect(abs(p.x - SphericalMercator.halfWorld) < 1e-6)
        #expect(abs(p.y - SphericalMercator.halfWorld) < 1e-2)
        let clamped = SphericalMercator.project(lon: 0, lat: 89.9)
        #expect(clamped.y <= SphericalMercator.halfWorld)
        #expect(abs(clamped.y - p.y) < 1e-6)
        let stockholm = SphericalMercator.project(lon: 18.0686, lat: 59.3293)
        #expect(abs(stockholm.x - 2_011_384.0) < 50)
        #expect(abs(stockholm.y - 8_250_000.0) < 5_000)
        let back = SphericalMercator.unproject(x: stockholm.x, y: stockholm.y)
        #expect(abs(back.longitude - 18.0686) < 1e-9)
        #expect(abs(back.latitude - 59.3293) < 1e-9)
    }
}
