import Foundation
import KartpackTestSupport
import Testing

/// Readers of packages (`inspect`, `extract`, `query`, `style --package`) under hostile files (issue 32): each
/// limit stops the command quickly with exit 65 and a message naming the file and the reason.
@Suite struct HostilePackageCommandTests {
    private static let python = RepositoryPaths.root.appendingPathComponent(".venv/bin/python").path

    /// Runs a Python script (with the PyPI `pmtiles` package at hand) that writes `path`.
    private func make(_ path: String, _ script: String) throws {
        let r = try runProcess(Self.python, ["-c", script, path])
        #expect(r.status == 0, "\(r.stderr)")
    }

    private func sqlite(_ path: String, _ sql: String) throws {
        // The SQL goes through a file: 40 000 layers are more than an argument may hold.
        try sql.write(toFile: path + ".sql", atomically: false, encoding: .utf8)
        let script = """
            import sys, sqlite3
            c = sqlite3.connect(sys.argv[1])
            c.executescript(open(sys.argv[1] + ".sql", encoding="utf-8").read())
            c.commit()
            """
        let r = try runProcess(Self.python, ["-c", script, path])
        #expect(r.status == 0, "\(r.stderr)")
    }

    private func expectRefused(_ arguments: [String], _ path: String, reason: String) throws {
        let start = Date()
        let r = try runKartpack(arguments)
        #expect(r.status == 65, "\(arguments): \(r.status) \(r.stderr)")
        #expect(r.stderr.contains(path), "\(r.stderr)")
        #expect(r.stderr.contains(reason), "\(r.stderr)")
        #expect(Date().timeIntervalSince(start) < 30)
    }

    private static let metadataTable = """
        CREATE TABLE metadata (name TEXT, value TEXT);
        INSERT INTO metadata VALUES ('name', 'hostile'), ('format', 'pbf');
        """

    @Test func viewsInPlaceOfTablesAreRefused() throws {
        let dir = try TemporaryDirectory()
        let cases: [(String, String)] = [
            (
                "recursive-tiles",
                Self.metadataTable + """
                    CREATE VIEW tiles AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
                    SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, x'1f8b' AS tile_data FROM r;
                    """
            ),
            (
                "zeroblob-tiles",
                Self.metadataTable + """
                    CREATE VIEW tiles AS SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row,
                    zeroblob(900000000) AS tile_data;
                    """
            ),
            (
                "recursive-metadata",
                """
                CREATE VIEW metadata AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
                SELECT 'k' || n AS name, 'v' AS value FROM r;
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                """
            ),
        ]
        for (name, sql) in cases {
            let path = dir.file("\(name).mbtiles")
            try sqlite(path, sql)
            try expectRefused(["inspect", path], path, reason: "is a view, not a table")
            try expectRefused(
                ["extract", path, "--bbox", "0,0,1,1", "-o", dir.file("\(name)-part.pmtiles")], path,
                reason: "is a view, not a table")
        }
    }

    @Test func aTileStoredTwiceIsADataError() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("twice.mbtiles")
        try sqlite(
            path,
            Self.metadataTable + """
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                INSERT INTO tiles VALUES (0, 0, 0, x'1a00'), (0, 0, 0, x'1a00');
                """)
        try expectRefused(
            ["extract", path, "--bbox", "0,0,1,1", "-o", dir.file("part.mbtiles")], path, reason: "stored twice")
        try expectRefused(["inspect", path], path, reason: "stored twice")
    }

    /// A root directory pointing to one leaf of 2 M one-byte entries (8 MB of directory in a few kB of gzip).
    @Test func aLeafDirectoryBombIsRefusedBeforeItIsDecoded() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("leaf-bomb.pmtiles")
        try make(
            path,
            """
            import sys, gzip
            from pmtiles.tile import Entry, serialize_directory, serialize_header, TileType, Compression
            n = 2 * 1024 * 1024
            leaf = gzip.compress(bytes([0x80, 0x80, 0x80, 0x01]) + b"\\x00"
                                 + b"\\x01" * (n - 1) + b"\\x01" * n + b"\\x01" * n + b"\\x01" + b"\\x00" * (n - 1))
            root = serialize_directory([Entry(0, 0, len(leaf), 0)])
            meta = gzip.compress(b'{"name":"bomb"}')
            h = {"root_offset": 127, "root_length": len(root), "metadata_offset": 127 + len(root),
                 "metadata_length": len(meta), "leaf_directory_offset": 127 + len(root) + len(meta),
                 "leaf_directory_length": len(leaf), "tile_data_offset": 127 + len(root) + len(meta) + len(leaf),
                 "tile_data_length": n, "addressed_tiles_count": n, "tile_entries_count": n,
                 "tile_contents_count": 1, "clustered": True, "internal_compression": Compression.GZIP,
                 "tile_compression": Compression.GZIP, "tile_type": TileType.MVT, "min_zoom": 0, "max_zoom": 10,
                 "min_lon_e7": -1800000000, "min_lat_e7": -850000000, "max_lon_e7": 1800000000,
                 "max_lat_e7": 850000000, "center_zoom": 0, "center_lon_e7": 0, "center_lat_e7": 0}
            with open(sys.argv[1], "wb") as f:
                f.write(serialize_header(h) + root + meta + leaf + b"\\x00" * n)
            """)
        let reason = "exceeds the limit of 1048576"
        try expectRefused(["inspect", path], path, reason: reason)
        try expectRefused(["extract", path, "--bbox", "0,0,1,1", "-o", dir.file("part.pmtiles")], path, reason: reason)
        try expectRefused(["query", path, "--bbox", "0,0,1,1", "--zoom", "10"], path, reason: reason)
        try expectVerifyRefuses(bomb: path, reason: reason)
    }

    /// `verify` opens every package its catalog lists through the same bounded readers: a region folder whose
    /// `r1.pmtiles` is replaced by `bomb`, with the catalog's size and SHA-256 made to match (as a planted or
    /// corrupted package that still hashes right would be), exits 65 quickly, naming the package and the limit.
    private func expectVerifyRefuses(bomb: String, reason: String) throws {
        let night = try PackageRefusalTests.Night()
        _ = try night.firstNight()
        let package = night.published("r1.pmtiles")
        try FileManager.default.removeItem(atPath: package)
        try FileManager.default.copyItem(atPath: bomb, toPath: package)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: package))
        let digest = try runProcess("/usr/bin/sha256sum", [package])
        let sha256 = String(digest.stdout.prefix(64))
        let catalogPath = night.published("catalog.json")
        var catalog = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: catalogPath)))
                as? [String: Any])
        var regions = try #require(catalog["regions"] as? [[String: Any]])
        let i = try #require(regions.firstIndex { $0["id"] as? String == "r1" })
        regions[i]["bytes"] = bytes.count
        regions[i]["sha256"] = sha256
        catalog["regions"] = regions
        try JSONSerialization.data(withJSONObject: catalog).write(to: URL(fileURLWithPath: catalogPath))
        let start = Date()
        let r = try runKartpack(["verify", night.out])
        #expect(r.status == 65, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("r1.pmtiles") && r.stderr.contains(reason), "\(r.stderr)")
        #expect(Date().timeIntervalSince(start) < 30)
    }

    /// 64 tiles sharing one blob of 1.9 M point features with one id (a few kB of gzip): `query` stops at its
    /// feature limit instead of joining them for minutes.
    @Test func sameIdFeaturesInSharedTilesStopQuery() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("same-id.pmtiles")
        try make(
            path,
            """
            import sys, gzip
            from pmtiles.writer import write
            from pmtiles.tile import zxy_to_tileid, TileType, Compression
            feature = b"\\x12\\x09\\x08\\x01\\x18\\x01\\x22\\x03\\x09\\x02\\x02"
            body = b"\\x0a\\x01p" + feature * 1900000 + b"\\x28\\x80\\x20\\x78\\x02"
            def varint(n):
                out = b""
                while n >= 0x80:
                    out += bytes([0x80 | (n & 0x7f)])
                    n >>= 7
                return out + bytes([n])
            layer = b"\\x1a" + varint(len(body)) + body
            blob = gzip.compress(layer, mtime=0)
            with write(sys.argv[1]) as w:
                for i in sorted(zxy_to_tileid(3, x, y) for x in range(8) for y in range(8)):
                    w.write_tile(i, blob)
                w.finalize({"tile_type": TileType.MVT, "tile_compression": Compression.GZIP, "min_zoom": 3,
                            "max_zoom": 3, "min_lon_e7": -1800000000, "min_lat_e7": -850000000,
                            "max_lon_e7": 1800000000, "max_lat_e7": 850000000, "center_zoom": 3,
                            "center_lon_e7": 0, "center_lat_e7": 0},
                           {"name": "same-id", "vector_layers": [{"id": "p", "fields": {}}]})
            """)
        try expectRefused(
            ["query", path, "--bbox", "-179,-80,179,80", "--zoom", "3"], path, reason: "the limit of one query")
    }

    @Test func fortyThousandLayersStopStyle() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("layers.mbtiles")
        let layers = (0..<40_000).map { "{\"id\":\"l\($0)\",\"fields\":{}}" }.joined(separator: ",")
        try sqlite(
            path,
            """
            CREATE TABLE metadata (name TEXT, value TEXT);
            INSERT INTO metadata VALUES ('name', 'layers'), ('format', 'pbf'),
              ('json', '{"vector_layers":[\(layers)]}');
            CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
            INSERT INTO tiles VALUES (0, 0, 0, x'1a00');
            """)
        let sheet = RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss").path
        try expectRefused(
            ["style", sheet, "--package", path, "-o", dir.file("style/style.json")], path, reason: "more than the limit"
        )
    }
}
