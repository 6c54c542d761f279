import Foundation
import Gzip
import KartpackCore
import Testing
@testable import PMTiles
@testable import TileArchive

/// Writes `interop.pmtiles` and `interop.mbtiles` (real gzipped MVT tiles) into `$KARTPACK_INTEROP_DIR` for the
/// external readers (Python `pmtiles`, GDAL `ogrinfo`, the `sqlite3` shell). Runs only when the variable is set.
@Suite struct InteropFixtureTests {
    static let directory = ProcessInfo.processInfo.environment["KARTPACK_INTEROP_DIR"]

    @Test(.enabled(if: directory != nil))
    func writesInteropArchives() throws {
        let dir = try #require(Self.directory)
        var tiles: [(TileCoordinate, [UInt8])] = []
        for z in 0...2 {
            for x in 0..<(1 << z) {
                for y in 0..<(1 << z) {
                    tiles.append(
                        (TileCoordinate(z: z, x: x, y: y), try Gzip.compress(sampleMVT(name: "\(z)/\(x)/\(y)"))))
                }
            }
        }
        // A few identical tiles at z3 exercise dedup and run lengths.
        let same = try Gzip.compress(sampleMVT(name: "same"))
        for id in PMTilesTileID.base(3)..<(PMTilesTileID.base(3) + 5) {
            tiles.append((PMTilesTileID.coordinate(id)!, same))
        }
        var meta = sampleMetadata()
        meta.bounds = GeoBounds(west: -180, south: -85.0511287, east: 180, north: 85.0511287)
        let pm = try PMTilesWriter(path: dir + "/interop.pmtiles", overwrite: true)
        for (k, d) in tiles.sorted(by: { PMTilesTileID.id($0.0)! < PMTilesTileID.id($1.0)! }) {
            try pm.write(z: k.z, x: k.x, y: k.y, data: d)
        }
        let pmSummary = try pm.finish(metadata: meta)
        let mb = try MBTilesWriter(path: dir + "/interop.mbtiles", overwrite: true)
        for (k, d) in tiles.sorted(by: { $0.0 < $1.0 }) { try mb.write(z: k.z, x: k.x, y: k.y, data: d) }
        let mbSummary = try mb.finish(metadata: meta)
        #expect(pmSummary.addressedTiles == mbSummary.addressedTiles)
        #expect(pmSummary.tileContents == tiles.count - 4)

        // An archive large enough to need leaf directories.
        let leaves = try PMTilesWriter(path: dir + "/interop-leaves.pmtiles", overwrite: true)
        var rng = SplitMix(seed: 3)
        var id = PMTilesTileID.base(10)
        for _ in 0..<30_000 {
            id += UInt64.random(in: 1...6, using: &rng)
            let k = PMTilesTileID.coordinate(id)!
            let body = (0..<Int.random(in: 1...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try leaves.write(z: k.z, x: k.x, y: k.y, data: try Gzip.compress(body))
        }
        _ = try leaves.finish(metadata: meta)
    }
}
