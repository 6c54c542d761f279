import Gzip
import KartpackCore
import SQLiteStore
import Testing
@testable import PMTiles
@testable import TileArchive

@Suite struct MBTilesArchiveTests {
    func writeArchive(_ path: String, _ tiles: [(TileCoordinate, [UInt8])], overwrite: Bool = false) throws
        -> ArchiveSummary
    {
        let writer = try MBTilesWriter(path: path, overwrite: overwrite)
        #expect(writer.tileOrder == .zxy && !writer.deduplicates)
        for (k, data) in tiles.sorted(by: { $0.0 < $1.0 }) { try writer.write(z: k.z, x: k.x, y: k.y, data: data) }
        return try writer.finish(metadata: sampleMetadata())
    }

    @Test func writesAndReadsBackWithTMSRows() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/tiles.mbtiles"
            let mvt = try Gzip.compress(sampleMVT())
            var tiles: [(TileCoordinate, [UInt8])] = [(TileCoordinate(z: 11, x: 327, y: 791), mvt)]
            for z in 0...2 {
                for x in 0..<(1 << z) {
                    for y in 0..<(1 << z) {
                        tiles.append((TileCoordinate(z: z, x: x, y: y), [UInt8(z), UInt8(x), UInt8(y)]))
                    }
                }
            }
            let summary = try writeArchive(path, tiles)
            #expect(summary.addressedTiles == tiles.count && summary.format == .mbtiles)
            #expect(summary.minZoom == 0 && summary.maxZoom == 11)
            #expect(try listing(dir) == ["tiles.mbtiles"])

            // The raw table holds the TMS row.
            let db = try SQLiteConnection(path: path, mode: .readOnly)
            let rows = try db.textColumn("SELECT tile_row FROM tiles WHERE zoom_level = 11 AND tile_column = 327")
            #expect(rows == ["1256"])
            #expect(try db.textColumn("PRAGMA integrity_check") == ["ok"])
            #expect(try db.textColumn("PRAGMA journal_mode") == ["delete"])
            #expect(try db.textColumn("PRAGMA application_id") == ["1297105496"])
            #expect(
                try db.textColumn("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name") == [
                    "name", "tile_index",
                ])
            try db.close()

            let reader = try MBTilesReader(path: path)
            #expect(try reader.tile(z: 11, x: 327, y: 791) == mvt)
            #expect(try reader.tile(z: 11, x: 327, y: 1256) == nil)
            #expect(try reader.tile(z: 2, x: 3, y: 0) == [2, 3, 0])
            #expect(try reader.tileCount() == tiles.count)
            var seen: [(TileCoordinate, [UInt8])] = []
            try reader.forEachTile { k, d in
                seen.append((k, d))
                return true
            }
            #expect(Set(seen.map(\.0)) == Set(tiles.map(\.0)))
            for (k, d) in seen { #expect(tiles.first { $0.0 == k }?.1 == d) }

            let meta = try reader.metadataRows()
            let names = meta.map(\.name)
            for key in [
                "attribution", "bounds", "center", "description", "format", "generator", "json", "maxzoom",
                "minzoom", "name", "type", "version",
            ] {
                #expect(names.contains(key), "missing \(key)")
            }
            #expect(names == names.sorted())
            #expect(try reader.metadataValue("format") == "pbf")
            #expect(try reader.metadataValue("minzoom") == "0")
            #expect(try reader.metadataValue("maxzoom") == "11")
            // Derived from the tiles at the highest zoom (the single z11 tile), rounded to 1e-7.
            #expect(try reader.metadataValue("bounds") == "-122.5195313,37.7185903,-122.34375,37.8575072")
            let center = try reader.metadataValue("center") ?? ""
            #expect(center.hasPrefix("-122.43164") && center.hasSuffix(",0"), "\(center)")
            let json = try reader.metadataJSON()
            #expect(json?["vector_layers"]?.arrayValue?.count == 1)
            #expect(json?["kartpack_summary"]?["features"]?.intValue == 1)
            #expect(
                try reader.metadataValue("json")
                    == #"{"kartpack_summary":{"features":1,"skipped":{}},"vector_layers":[{"fields":{"name":"String","#
                    + #""area":"Number"},"id":"points"}]}"#
            )
        }
    }

    @Test func rejectsOutOfOrderTiles() throws {
        try withTemporaryDirectory { dir in
            let writer = try MBTilesWriter(path: dir + "/order.mbtiles")
            try writer.write(z: 1, x: 1, y: 0, data: [1])
            do throws(TileArchiveError) {
                try writer.write(z: 1, x: 0, y: 1, data: [1])
                Issue.record("out-of-order tile accepted")
            } catch {
                guard case .outOfOrder(_, _, .zxy) = error else {
                    Issue.record("wrong error \(error)")
                    return
                }
            }
            #expect(throws: TileArchiveError.self) { try writer.write(z: 1, x: 1, y: 0, data: [1]) }
            #expect(throws: TileArchiveError.self) { try writer.write(z: 1, x: 2, y: 0, data: [1]) }
            try writer.write(z: 1, x: 1, y: 1, data: [1])
            let summary = try writer.finish(metadata: sampleMetadata())
            #expect(summary.addressedTiles == 2)
        }
    }

    @Test func refusesOverwriteAndAbortKeepsTheOldFile() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/keep.mbtiles"
            try writeBytes(Array("old".utf8), to: path)
            do throws(TileArchiveError) {
                _ = try MBTilesWriter(path: path)
                Issue.record("existing target accepted")
            } catch {
                #expect(error.exitCode == .cantCreate)
            }
            let writer = try MBTilesWriter(path: path, overwrite: true)
            try writer.write(z: 0, x: 0, y: 0, data: [1])
            let names = try listing(dir)
            #expect(names.count == 2)
            #expect(names.contains { $0.hasPrefix("keep.mbtiles.tmp-") })
            writer.abort()
            #expect(try listing(dir) == ["keep.mbtiles"])
            #expect(try readBytes(path) == Array("old".utf8))

            _ = try writeArchive(path, [(TileCoordinate(z: 0, x: 0, y: 0), [7])], overwrite: true)
            #expect(try MBTilesReader(path: path).tile(z: 0, x: 0, y: 0) == [7])
            #expect(try listing(dir) == ["keep.mbtiles"])
        }
    }

    @Test func anEmptyArchiveIsNotPublished() throws {
        try withTemporaryDirectory { dir in
            let writer = try MBTilesWriter(path: dir + "/empty.mbtiles")
            #expect(throws: TileArchiveError.self) { try writer.finish(metadata: sampleMetadata()) }
            #expect(try listing(dir).isEmpty)
        }
    }

    @Test func readerRejectsGarbageAndTruncatedFiles() throws {
        try withTemporaryDirectory { dir in
            let good = dir + "/good.mbtiles"
            _ = try writeArchive(good, (0..<4).map { (TileCoordinate(z: 1, x: $0 / 2, y: $0 % 2), [UInt8($0)]) })
            let bytes = try readBytes(good)
            let probe = dir + "/probe.mbtiles"
            for candidate in [
                Array("not a database".utf8), [UInt8](repeating: 0, count: 4096), Array(bytes[..<100]),
                Array(bytes[..<(bytes.count / 3)]),
            ] {
                try writeBytes(candidate, to: probe)
                do throws(TileArchiveError) {
                    let r = try MBTilesReader(path: probe)
                    _ = try r.metadata()
                    try r.forEachTile { _, _ in true }
                    Issue.record("garbage of \(candidate.count) bytes was accepted")
                } catch {
                    #expect(error.exitCode == .dataError, "\(error)")
                }
            }
            // A valid SQLite file without MBTiles tables.
            let other = dir + "/other.mbtiles"
            let db = try SQLiteConnection(path: other, mode: .readWriteCreate)
            try db.exec("CREATE TABLE x (a)")
            try db.close()
            #expect(throws: TileArchiveError.self) { try MBTilesReader(path: other) }
            #expect(throws: TileArchiveError.self) { try MBTilesReader(path: dir + "/missing.mbtiles") }
            #expect(try listing(dir) == ["good.mbtiles", "other.mbtiles", "probe.mbtiles"])
        }
    }

    /// mbutil's and TileMill's deduplicated layout: `tiles` is a view over `map` and `images`. The reader joins the
    /// two tables itself (the view's text is never run): a view whose text differs from the tables, as a hostile one
    /// would, changes nothing. Without both tables, or when one of them is itself a view, the view is refused.
    @Test func aDeduplicatedFileIsReadThroughItsTablesNotItsView() throws {
        try withTemporaryDirectory { dir in
            let schema = """
                CREATE TABLE metadata (name TEXT, value TEXT);
                INSERT INTO metadata VALUES ('name', 'dedup'), ('format', 'pbf');
                CREATE TABLE images (tile_data BLOB, tile_id TEXT);
                CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
                CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row);
                INSERT INTO images VALUES (x'0a0b', 'a'), (x'0c', 'b');
                INSERT INTO map VALUES (0, 0, 0, 'a'), (1, 0, 0, 'a'), (1, 1, 1, 'b');
                """
            let cases: [(name: String, sql: String, readable: Bool)] = [
                (
                    "mbutil",
                    schema + """
                        CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column,
                        map.tile_row AS tile_row, images.tile_data AS tile_data
                        FROM map JOIN images ON images.tile_id = map.tile_id;
                        """, true
                ),
                (
                    "lying-view",
                    schema + """
                        CREATE VIEW tiles AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
                        SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row,
                        zeroblob(900000000) AS tile_data FROM r;
                        """, true
                ),
                (
                    "no-images",
                    "CREATE TABLE metadata (name TEXT, value TEXT);\n"
                        + "CREATE TABLE map (zoom_level, tile_column, tile_row, tile_id);\n"
                        + "CREATE VIEW tiles AS SELECT zoom_level, tile_column, tile_row, tile_id AS tile_data "
                        + "FROM map;",
                    false
                ),
                (
                    "images-is-a-view",
                    "CREATE TABLE metadata (name TEXT, value TEXT);\n"
                        + "CREATE TABLE map (zoom_level, tile_column, tile_row, tile_id);\n"
                        + "CREATE VIEW images AS SELECT zeroblob(900000000) AS tile_data, 'a' AS tile_id;\n"
                        + "CREATE VIEW tiles AS SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, "
                        + "x'00' AS tile_data;",
                    false
                ),
            ]
            for c in cases {
                let path = dir + "/\(c.name).mbtiles"
                let db = try SQLiteConnection(path: path, mode: .readWriteCreate)
                try db.exec(c.sql)
                try db.close()
                guard c.readable else {
                    #expect(throws: TileArchiveError.self, "\(c.name)") { try MBTilesReader(path: path) }
                    continue
                }
                let r = try MBTilesReader(path: path)
                var tiles: [TileCoordinate: [UInt8]] = [:]
                try r.forEachTile { key, data in
                    tiles[key] = data
                    return true
                }
                // TMS rows: row 0 of zoom 1 is y 1, row 1 is y 0.
                let expected: [TileCoordinate: [UInt8]] = [
                    TileCoordinate(z: 0, x: 0, y: 0): [0x0a, 0x0b], TileCoordinate(z: 1, x: 0, y: 1): [0x0a, 0x0b],
                    TileCoordinate(z: 1, x: 1, y: 0): [0x0c],
                ]
                #expect(tiles == expected, "\(c.name)")
                #expect(try r.tileCount() == 3, "\(c.name)")
                #expect(try r.tile(z: 1, x: 1, y: 0) == [0x0c], "\(c.name)")
                #expect(try r.metadataValue("name") == "dedup", "\(c.name)")
            }
        }
    }
}
