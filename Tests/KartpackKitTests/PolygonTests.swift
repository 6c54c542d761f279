import Foundation
import GeometryAlgorithms
import KartpackCore
import KartpackKit
import KartpackTestSupport
import PMTiles
import Testing
import VectorTile

/// A square with a square hole, cut into the four tiles it spans by hand (each piece with a 64-unit buffer, as
/// an encoder writes them): the query joins them into one feature with the hole, without the buffers.
@Suite struct PolygonTests {
    /// Ring in world units (z1 tiles of 4096): the square from (3072, 3072) to (5120, 5120), hole inside.
    static func piece(dx: Int32, dy: Int32) -> [[[TilePoint]]] {
        func clampRing(_ r: [(Int32, Int32)]) -> [TilePoint] {
            r.map { TilePoint(min(max($0.0 - dx, -64), 4160), min(max($0.1 - dy, -64), 4160)) }
        }
        // Exterior clockwise on screen (y down), hole counter-clockwise.
        let outer = clampRing([(3072, 3072), (5120, 3072), (5120, 5120), (3072, 5120)])
        let hole = clampRing([(3584, 3584), (3584, 4608), (4608, 4608), (4608, 3584)])
        return [[outer, hole]]
    }

    @Test func piecesJoinIntoOnePolygonWithItsHole() throws {
        let dir = try TemporaryDirectory()
        var tiles: [TileCoordinate: MVTLayerBuilder] = [:]
        for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            var b = MVTLayerBuilder(name: "areas")
            b.addFeature(
                id: 9, type: .polygon,
                geometry: MVTGeometryEncoder.polygons(Self.piece(dx: Int32(x) * 4096, dy: Int32(y) * 4096)),
                properties: Properties([("class", .string("pond"))]))
            tiles[TileCoordinate(z: 1, x: x, y: y)] = b
        }
        let path = dir.file("areas.pmtiles")
        try SyntheticPackage.write(tiles, layers: [VectorLayerInfo(id: "areas", fields: [])], to: path)
        let pkg = try KartpackPackage(contentsOf: URL(fileURLWithPath: path))
        let found = try pkg.features(in: .world, zoom: 1)
        #expect(found.count == 1)
        guard let f = found.first, case .polygons(let polys) = f.geometry else {
            Issue.record("no polygon")
            return
        }
        #expect(f.id == 9 && f.featureClass == "pond")
        #expect(polys.count == 4)
        #expect(polys.allSatisfy { $0.holes.count == 1 })
        // Square edges at world x 3072/8192 = 0.375 → longitude −45 … 45; no buffer beyond them.
        let b = try #require(f.geometry.bounds)
        #expect(abs(b.west + 45) < 1e-9 && abs(b.east - 45) < 1e-9)
        // Clipped to the eastern half: only the two eastern pieces, cut at longitude 10.
        let east = try pkg.features(in: GeoRegion(west: 10, south: -80, east: 180, north: 80), zoom: 1)
        guard case .polygons(let cut) = east.first?.geometry else {
            Issue.record("no clipped polygon")
            return
        }
        #expect(cut.count == 2)
        #expect(abs((east.first?.geometry.bounds?.west ?? 0) - 10) < 1e-9)
        // Whole pieces of the covering tiles: the eastern tiles' pieces, from longitude 0.
        let whole = try pkg.features(
            in: GeoRegion(west: 10, south: -80, east: 180, north: 80), zoom: 1, geometry: .whole)
        #expect(abs((whole.first?.geometry.bounds?.west ?? 1) - 0) < 1e-9)
    }
}
