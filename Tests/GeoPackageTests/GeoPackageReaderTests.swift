import Foundation
import GeoPackage
import KartpackCore
import KartpackTestSupport
import SQLiteStore
import Testing

@Suite struct GeoPackageReaderTests {
    let dir: TemporaryDirectory
    init() throws { dir = try TemporaryDirectory(prefix: "gpkg-test") }

    func write(_ fixture: GeoPackageFixture, _ name: String = "t.gpkg") throws -> String {
        let path = dir.file(name)
        try fixture.write(path)
        return path
    }

    func readAll(_ path: String, table: String) throws -> (
        features: [Feature], stats: ReaderStats, sink: DiagnosticSink
    ) {
        let file = try GeoPackageFile(path: path)
        let sink = DiagnosticSink(sampleLimit: 100)
        let reader = try GeoPackageReader(file: file, layer: try file.layer(named: table), diagnostics: sink)
        var out: [Feature] = []
        while let f = try reader.next() { out.append(f) }
        #expect(try reader.next() == nil, "still nil after the end, as the read phase asks again")
        return (out, reader.stats, sink)
    }

    static let hostileName = #"roads"; DROP TABLE gpkg_contents; --"#

    func sample(name: String = hostileName) -> GeoPackageFixture {
        var t = GeoPackageFixture.Table(name: name, geometryType: "POINT")
        t.columns = [
            ("name", "TEXT(20)"), ("n", "INTEGER"), ("x", "REAL"), ("ok", "BOOLEAN"), ("day", "DATE"),
            ("at", "DATETIME"), ("pic", "BLOB"),
        ]
        let p = { (x: Double) in WKBBytes.blob(WKBBytes.point(x, 1)) }
        t.rows = [
            (3, p(3), ["'c'", "3", "3.5", "1", "'2024-02-29'", "'2024-01-01T10:00:00Z'", "X'00'"]),
            (1, p(1), ["'a'", "1", "1.5", "0", "'2023-02-29'", "NULL", "NULL"]),
            (2, nil, ["'b'", "'12a'", "'x'", "7", "NULL", "NULL", "NULL"]),
            (4, WKBBytes.blob(WKBBytes.point(4, 1), srs: 3006), ["'d'", "4", "4", "1", "NULL", "NULL", "NULL"]),
            (5, WKBBytes.blob(WKBBytes.point(5, 1), empty: true), ["'e'", "5", "5", "1", "NULL", "NULL", "NULL"]),
            (
                6, [0x47, 0x50, 0, 1, 0xE6, 0x10, 0, 0, 1, 2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F],
                ["'f'"] + Array(repeating: "NULL", count: 6)
            ),
            (7, WKBBytes.blob(WKBBytes.point(7, 1)), ["'g'"] + Array(repeating: "NULL", count: 6)),
            (-2, WKBBytes.blob(WKBBytes.point(8, 1)), ["'h'"] + Array(repeating: "NULL", count: 6)),
        ]
        var f = GeoPackageFixture()
        f.tables = [t]
        return f
    }

    @Test func readsRowsInFidOrderWithTypedAttributesAndCountsEverySkip() throws {
        let path = try write(sample())
        let file = try GeoPackageFile(path: path)
        #expect(file.layers.map(\.table) == [Self.hostileName], "the SQL in the name stays a name")
        let r = try readAll(path, table: Self.hostileName)
        #expect(r.features.map(\.provenance.record) == [1, 3, 7], "fid order, not insertion order")
        #expect(r.features.map(\.id) == [1, 3, 7])
        let first = r.features[0].properties
        #expect(first.keys == ["name", "n", "x", "ok", "day", "at"], "fid, geometry and the BLOB are not attributes")
        #expect(first.values == [.string("a"), .int(1), .double(1.5), .bool(false), .null, .null])
        #expect(r.features[1].properties["at"] == .string("2024-01-01T10:00:00Z"))
        #expect(r.features[1].properties["day"] == .string("2024-02-29"))
        #expect(
            r.stats.skipped == [
                .nullGeometry: 1, .srsMismatch: 1, .emptyGeometry: 1, .badWkb: 1, .negativeFid: 1,
            ])
        #expect(r.stats.recordsInFile == 8 && r.stats.recordsRead == 8 && r.stats.featuresEmitted == 3)
        #expect(r.stats.coercedToNull == [.badDate: 1])
        #expect(r.stats.warnings[.blobFieldSkipped] == 1)
        let bad = try #require(r.sink.samples.first { $0.code == .badWkb })
        #expect(bad.formatted.contains("t.gpkg table") && bad.formatted.contains("DROP TABLE") && bad.record == 6)
        // The file still holds its tables: nothing was executed.
        #expect(try GeoPackageFile(path: path).layers.count == 1)
    }

    @Test func attributeCoercionsOnTheSkippedRowAreReadByFid() throws {
        let path = try write(sample())
        let file = try GeoPackageFile(path: path)
        let reader = try GeoPackageReader(
            file: file, layer: try file.layer(named: Self.hostileName), diagnostics: DiagnosticSink())
        let p = try #require(try reader.attributes(ofFID: 2))
        #expect(p["name"] == .string("b") && p["n"] == .null && p["x"] == .null && p["ok"] == .null)
        #expect(try reader.attributes(ofFID: 99) == nil)
    }

    @Test func tablesAreFoundByNameIgnoringCaseAndUnknownOnesListed() throws {
        var f = sample(name: "Roads")
        f.tables.append(GeoPackageFixture.Table(name: "rivers"))
        let file = try GeoPackageFile(path: try write(f))
        #expect(try file.layer(named: "roads").table == "Roads")
        #expect(throws: GeoPackageError.noSuchTable(file: "t.gpkg", table: "lakes", tables: ["Roads", "rivers"])) {
            try file.layer(named: "lakes")
        }
    }

    @Test func pendingWALAndJournalRefuseTheFile() throws {
        let path = try write(sample())
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: path + "-wal"))
        #expect(throws: GeoPackageError.pendingChanges(file: "t.gpkg", sidecar: "t.gpkg-wal", size: 3)) {
            try GeoPackageFile(path: path)
        }
        try Data().write(to: URL(fileURLWithPath: path + "-wal"))
        #expect(try GeoPackageFile(path: path).layers.count == 1, "an empty -wal holds nothing")
    }

    @Test func filesThatAreNotGeoPackagesAreRefused() throws {
        let text = dir.file("x.gpkg")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: (any Error).self) { try GeoPackageFile(path: text) }
        do { _ = try GeoPackageFile(path: text) } catch { #expect(error.code == .notAGeopackage) }
        let plain = dir.file("plain.gpkg")
        let db = try SQLiteConnection(path: plain, mode: .readWriteCreate)
        try db.exec("CREATE TABLE a (x)")
        try db.close()
        do { _ = try GeoPackageFile(path: plain) } catch { #expect(error.code == .notAGeopackage) }
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.gpkg"), withDestinationPath: plain)
        do { _ = try GeoPackageFile(path: dir.file("link.gpkg")) } catch { #expect(error.code == .notARegularFile) }
    }

    @Test func viewsTablesWithoutKeyAndUnknownSRSAreRejectedWithReasons() throws {
        var f = sample(name: "pts")
        f.tables.append(GeoPackageFixture.Table(name: "nosrs", srsID: 9999))
        let path = try write(f)
        let db = try SQLiteConnection(path: path, mode: .readWriteCreate)
        try db.exec(
            """
            CREATE VIEW v AS SELECT * FROM pts;
            INSERT INTO gpkg_contents (table_name, data_type) VALUES ('v', 'features');
            INSERT INTO gpkg_geometry_columns VALUES ('v', 'geom', 'POINT', 4326, 0, 0);
            CREATE TABLE nokey (geom BLOB, a TEXT);
            INSERT INTO gpkg_contents (table_name, data_type) VALUES ('nokey', 'features');
            INSERT INTO gpkg_geometry_columns VALUES ('nokey', 'geom', 'POINT', 4326, 0, 0);
            """)
        try db.close()
        let file = try GeoPackageFile(path: path)
        func code(_ table: String) -> ReasonCode? {
            do {
                _ = try GeoPackageReader(file: file, layer: try file.layer(named: table), diagnostics: DiagnosticSink())
                return nil
            } catch { return error.code }
        }
        #expect(code("v") == .gpkgNotATable)
        #expect(code("nokey") == .gpkgNoFeatureId)
        #expect(code("nosrs") == .gpkgUnknownSrs)
        #expect(code("pts") == nil)
    }

    @Test func srsRowsGiveWKTOrEPSGOrNothing() {
        let wkt = GeoPackageSRS(
            srsID: 3006, name: "", organization: "EPSG", organizationCode: 3006, definition: "PROJCS[]")
        #expect(wkt.wktDefinition == "PROJCS[]" && wkt.epsgFallback == nil)
        let code = GeoPackageSRS(
            srsID: 7, name: "", organization: "epsg", organizationCode: 3006, definition: "undefined")
        #expect(code.wktDefinition == nil && code.epsgFallback == "EPSG:3006")
        let none = GeoPackageSRS(srsID: 0, name: "", organization: "NONE", organizationCode: 0, definition: "undefined")
        #expect(none.wktDefinition == nil && none.epsgFallback == nil)
    }
}
