import Foundation
import GeometryAlgorithms
import KartpackCore
import KartpackJSON
import KartpackKit
import KartpackTestSupport
import PMTiles
import VectorTile

/// Writes small PMTiles packages for the library tests with the project's own writer and encoder (independent
/// checks against PyPI readers are in scripts/interop/test_kartpack_kit.py).
enum SyntheticPackage {
    /// A point with an id and a `rank` attribute.
    struct Station {
        var id: UInt64
        var lon: Double
        var lat: Double
        var rank: Int64
    }

    static func world(lon: Double, lat: Double) -> (x: Double, y: Double) {
        let r = lat * .pi / 180
        return ((lon + 180) / 360, (1 - log(tan(r) + 1 / cos(r)) / .pi) / 2)
    }

    /// `count` random stations in `box`, written to a package at `zoom` with extent 4096.
    static func stations(count: Int, in box: GeoRegion, seed: UInt64) -> [Station] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { i in
            Station(
                id: UInt64(i + 1), lon: Double.random(in: box.west..<box.east, using: &rng),
                lat: Double.random(in: box.south..<box.north, using: &rng), rank: Int64(rng.next() % 1000))
        }
    }

    static func writePoints(_ stations: [Station], zoom z: Int, to path: String) throws {
        let n = Double(1 << z)
        var tiles: [TileCoordinate: MVTLayerBuilder] = [:]
        for s in stations {
            let w = world(lon: s.lon, lat: s.lat)
            let tx = Int((w.x * n).rounded(.down))
            let ty = Int((w.y * n).rounded(.down))
            let key = TileCoordinate(z: z, x: tx, y: ty)
            let px = Int32(((w.x * n - Double(tx)) * 4096).rounded())
            let py = Int32(((w.y * n - Double(ty)) * 4096).rounded())
            var b = tiles[key] ?? MVTLayerBuilder(name: "stations")
            b.addFeature(
                id: s.id, type: .point, geometry: MVTGeometryEncoder.points([TilePoint(px, py)]),
                properties: Properties([("rank", .int(s.rank)), ("name", .string("station \(s.id)"))]))
            tiles[key] = b
        }
        try write(
            tiles,
            layers: [
                VectorLayerInfo(
                    id: "stations",
                    fields: [
                        VectorLayerField(name: "name", type: .string), VectorLayerField(name: "rank", type: .number),
                    ])
            ], to: path)
    }

    static func write(
        _ tiles: [TileCoordinate: MVTLayerBuilder], layers: [VectorLayerInfo], to path: String,
        extra: [(key: String, value: JSONValue)] = []
    ) throws {
        let writer = try PMTilesWriter(path: path, overwrite: true)
        let ordered = tiles.keys.sorted {
            PMTilesTileID.id(z: $0.z, x: $0.x, y: $0.y)! < PMTilesTileID.id(z: $1.z, x: $1.x, y: $1.y)!
        }
        for key in ordered { try writer.write(z: key.z, x: key.x, y: key.y, data: try encodeTile([tiles[key]!])) }
        _ = try writer.finish(metadata: ArchiveMetadata(name: "synthetic", vectorLayers: layers, extra: extra))
    }
}
