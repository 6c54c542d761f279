import Foundation
import FuzzSupport
import Gzip
import KartpackCore
import KartpackJSON
import Inspection
import TileArchive
import VectorTile

/// The package fuzz target: every input is tried three ways, as `kartpack inspect` reads packages.
///
/// 1. As gzip: `Gzip.decompress` with a 1 MiB cap (the output must respect it), then the output as an MVT tile.
/// 2. As a raw MVT tile: `MVTDecoder().decode`.
/// 3. As a PMTiles archive (written to `FuzzScratch.shared` as `f.pmtiles`): `PackageInspector.inspect` (header,
///    directory walk through leaves, metadata JSON, layers) and its JSON encoding; then the archive as
///    `openTileArchive` opens it: metadata, every stored tile (the first `maxTiles`) through the archive's own
///    decompression and as gzip or MVT bytes, and `PackageInspector.inspectTile` for the same tiles (directory
///    lookup, decode, WGS84 coordinates).
///
/// An input that starts with the SQLite header is also read as an MBTiles file (`f.mbtiles`) the same way.
/// Thrown errors are answers, not bugs; their descriptions are still built, since messages quote hostile bytes.
enum PackageFuzzer {
    /// Decompression cap for the gzip interpretation.
    static let maxGunzip = 1 << 20
    /// Most tiles read from one archive.
    static let maxTiles = 64

    /// Runs one input.
    static func run(_ raw: UnsafeRawBufferPointer) {
        let bytes = Array(raw)
        asGzip(bytes)
        asTile(bytes)
        let scratch = FuzzScratch.shared
        scratch.write("f.pmtiles", bytes)
        asPackage(scratch.file("f.pmtiles"))
        if bytes.starts(with: Array("SQLite format 3\0".utf8)) {
            scratch.write("f.mbtiles", bytes)
            asPackage(scratch.file("f.mbtiles"))
            scratch.write("f.mbtiles", nil)
        }
    }

    static func asGzip(_ bytes: [UInt8]) {
        do {
            let out = try Gzip.decompress(bytes, maxOutput: maxGunzip)
            guard out.count <= maxGunzip else { FuzzDriver.fail("gunzip gave \(out.count) bytes over the cap") }
            asTile(out)
        } catch {
            _ = "\(error)"
        }
    }

    static func asTile(_ bytes: [UInt8]) {
        do {
            let tile = try MVTDecoder().decode(bytes)
            guard tile.warningCount >= tile.warnings.count else {
                FuzzDriver.fail("\(tile.warnings.count) warnings kept of \(tile.warningCount)")
            }
        } catch {
            _ = "\(error)"
        }
    }

    static func asPackage(_ path: String) {
        do {
            let inspection = try PackageInspector.inspect(path: path)
            _ = try? JSONValueEncoder.encode(inspection).sortingKeys().text(.pretty)
        } catch {
            _ = error.description
        }
        var keys: [TileCoordinate] = []
        do {
            let archive = try openTileArchive(path: path)
            _ = try? archive.metadata()
            try archive.forEachStoredTile { key, data in
                keys.append(key)
                // The archive's own decompression, bounded; then the tile itself.
                if let tile = try? archive.tileData(data) { asTile(tile) }
                data.starts(with: [0x1F, 0x8B]) ? asGzip(data) : asTile(data)
                return keys.count < maxTiles
            }
        } catch {
            _ = error.description
        }
        for key in keys.prefix(8) {
            do {
                _ = try PackageInspector.inspectTile(path: path, tile: key, wgs84: true)
            } catch {
                _ = error.description
            }
        }
    }
}
