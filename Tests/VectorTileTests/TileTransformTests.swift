import KartpackCore
import Testing
import VectorTile

@Suite struct TileTransformTests {
    @Test func tileTransformMapsCornersToExtent() {
        let tile = TileCoordinate(z: 3, x: 5, y: 2)
        let t = TileTransform(tile: tile, extent: 4096)
        let b = SphericalMercator.bounds(of: tile)
        let nw = t.apply(x: b.minX, y: b.maxY)
        let se = t.apply(x: b.maxX, y: b.minY)
        #expect(abs(nw.x) < 1e-6 && abs(nw.y) < 1e-6)
        #expect(abs(se.x - 4096) < 1e-6 && abs(se.y - 4096) < 1e-6)
        let back = t.invert(x: 4096, y: 4096)
        #expect(abs(back.x - b.maxX) < 1e-6 && abs(back.y - b.minY) < 1e-6)
    }
}
