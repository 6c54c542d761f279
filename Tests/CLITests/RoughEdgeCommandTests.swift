import Foundation
import KartpackTestSupport
import Testing

/// The rough edges a new user hit (issue 38): ordinary diagnostics counted instead of printed per record and
/// capped lists that say "…and N more", `--id-field` per input, a `--bbox` across the antimeridian and a centre
/// on data split at ±180°, one `validate` pass, and `inspect`'s exit code for a bad `--source-crs`.
@Suite struct RoughEdgeCommandTests {
    static let wgs84 = Array(
        ("GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],"
            + "PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]]").utf8)

    /// `n` points along a line of latitude `lat` from `lon0` in steps of `step` degrees, with fields `ID` (N),
    /// `NAME` (C; Swedish `DÖDSÅR` in Latin-1 with no .cpg when `latin1`: Ö with Å reads as CP1252 only),
    /// `VAL` (N, `***` when `stars`) and `KIND` (`a` or `b`, alternating).
    private func points(
        _ dir: TemporaryDirectory, _ name: String, n: Int, lon0: Double, lat: Double = 0, step: Double = 0.01,
        stars: Bool = false, latin1: Bool = false
    ) throws -> String {
        var f = ShapefileFixture(
            shapeType: .point, shapes: (0..<n).map { .point(lon0 + Double($0) * step, lat) })
        f.fields = [
            ShapefileFixture.Field("ID", "N", width: 6), ShapefileFixture.Field("NAME", "C", width: 8),
            ShapefileFixture.Field("VAL", "N", width: 4), ShapefileFixture.Field("KIND", "C", width: 2),
        ]
        f.rows = (0..<n).map { i in
            [
                Array(String(100 + i).utf8), latin1 ? [0x44, 0xD6, 0x44, 0x53, 0xC5, 0x52] : Array("p\(i)".utf8),
                stars ? Array("****".utf8) : Array("\(i % 50)".utf8), Array((i % 2 == 0 ? "a" : "b").utf8),
            ]
        }
        f.prj = Self.wgs84
        try f.write(to: dir.path, baseName: name)
        return dir.file("\(name).shp")
    }

    @Test func ordinaryFindingsAreCountedAndCappedListsSayHowManyMore() throws {
        let dir = try TemporaryDirectory()
        let shp = try points(dir, "pts", n: 30, lon0: 10, stars: true, latin1: true)
        let sheet = dir.file("s.kss")
        try Data("pts[KIND = \"b\"] { exclude: true; }\npts { class: p; }\n".utf8).write(
            to: URL(fileURLWithPath: sheet))
        let out = dir.file("o.pmtiles")
        let r = try runKartpack(["convert", shp, "-o", out, "--max-zoom", "6", "--style", sheet])
        #expect(r.status == 0, "\(r.stderr)")
        // No per-record lines for the ordinary codes: one counted info line each.
        // (The Latin-1 text is no longer a per-value `encoding_fallback`: the reader detects the layer's encoding
        // once; whatever it says about it is one line.)
        let encodingLines = r.stderr.split(separator: "\n").filter { $0.contains("encoding") }
        #expect(encodingLines.count <= 1, "\(encodingLines)")
        for code in ["overflow_marker", "excluded_by_style"] {
            let lines = r.stderr.split(separator: "\n").filter { $0.contains(code) }
            #expect(lines.count == 1, "\(code): \(lines)")
            #expect(lines.first?.contains("info: ") == true, "\(lines)")
        }
        #expect(r.stderr.contains("info: 30 × overflow_marker"), "\(r.stderr)")
        #expect(r.stderr.contains("info: 15 × excluded_by_style"), "\(r.stderr)")
        // A real warning over the per-code limit: 20 lines, then "…and N more" (text and JSON logs).
        let dup = try points(dir, "dup", n: 26, lon0: 12)
        var pipeline = """
            { "version": 1,
              "sources": [ { "path": "\(dup)", "layer": "dup", "idField": "KIND", "idPolicy": "record" } ],
              "tiles": { "minZoom": 0, "maxZoom": 4 }, "output": { "path": "\(dir.file("d.pmtiles"))" } }
            """
        try Data(pipeline.utf8).write(to: URL(fileURLWithPath: dir.file("p.json")))
        let text = try runKartpack(["run", dir.file("p.json")])
        #expect(text.status == 0, "\(text.stderr)")
        let warnings = text.stderr.split(separator: "\n").filter { $0.contains("warning: ") && $0.contains("record") }
        #expect(warnings.count == 20, "\(text.stderr)")
        #expect(text.stderr.contains("…and 4 more duplicate_id (24 in all)"), "\(text.stderr)")
        pipeline = pipeline.replacingOccurrences(of: "d.pmtiles", with: "e.pmtiles")
        try Data(pipeline.utf8).write(to: URL(fileURLWithPath: dir.file("p.json")))
        let json = try runKartpack(["run", dir.file("p.json"), "--log-format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let more = json.stderr.split(separator: "\n").filter { $0.contains("and 4 more duplicate_id") }
        #expect(more.count == 1 && more[0].contains("\"code\":\"duplicate_id\""), "\(json.stderr)")
    }

    @Test func emptyRegionsPastTwentySayHowManyMore() throws {
        let night = try PackageRefusalTests.Night()
        try night.regions((0..<24).map(PackageRefusalTests.square))
        try night.points([PackageRefusalTests.inside(0)])
        let r = try runKartpack([
            "package", night.plan, "--regions", night.dir.file("regions.shp"), "--id-field", "RID", "-o", night.out,
            "--threads", "1",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("23 regions hold no feature"), "\(r.stderr)")
        #expect(r.stderr.contains("r21, …and 3 more"), "\(r.stderr)")
    }

    @Test func idFieldRepeatsPerInput() throws {
        let dir = try TemporaryDirectory()
        let a = try points(dir, "a", n: 5, lon0: 10)
        let b = try points(dir, "b", n: 5, lon0: 11)
        let out = dir.file("o.pmtiles")
        let r = try runKartpack([
            "convert", a, b, "--id-field", "ID", "--id-field", "VAL", "-o", out, "--max-zoom", "4",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let script = """
            import sys, json
            from pmtiles.reader import Reader, MmapSource
            with open(sys.argv[1], 'rb') as f:
                v = Reader(MmapSource(f)).metadata().get('kartpack_ids')
                v = json.loads(v) if isinstance(v, str) else v
                print(v['a']['field'], v['b']['field'])
            """
        let py = RepositoryPaths.root.appendingPathComponent(".venv/bin/python").path
        let ids = try runProcess(py, ["-c", script, out])
        #expect(ids.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ID VAL", "\(ids.stdout) \(ids.stderr)")
        let wrong = try runKartpack(
            [
                "convert", a, b, "--id-field", "ID", "--id-field", "VAL", "--id-field", "KIND", "-o",
                dir.file("x.pmtiles"),
            ])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("3 --id-field names for 2 inputs"), "\(wrong.stderr)")
    }

    @Test func aBoxAcrossTheAntimeridianClipsBothSidesAndTheCentreIsOnTheData() throws {
        let dir = try TemporaryDirectory()
        let east = try points(dir, "east", n: 20, lon0: 171, lat: -17, step: 0.4)
        let west = try points(dir, "west", n: 20, lon0: -179, lat: -17, step: 0.4)
        let far = try points(dir, "far", n: 5, lon0: 0, lat: -17)
        let out = dir.file("o.pmtiles")
        let r = try runKartpack([
            "convert", east, west, far, "--bbox", "170,-25,-170,-10", "-o", out, "--max-zoom", "6", "--report",
            dir.file("r.json"),
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let script = """
            import sys, json
            from pmtiles.reader import Reader, MmapSource
            with open(sys.argv[1], 'rb') as f:
                r = Reader(MmapSource(f))
                h, m = r.header(), r.metadata()
                print(h['min_lon_e7'] / 1e7, h['max_lon_e7'] / 1e7, h['center_lon_e7'] / 1e7,
                      json.load(open(sys.argv[2]))['featuresWritten'])
            """
        let py = RepositoryPaths.root.appendingPathComponent(".venv/bin/python").path
        let o = try runProcess(py, ["-c", script, out, dir.file("r.json")])
        let v = o.stdout.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(v.count == 4, "\(o.stdout) \(o.stderr)")
        guard v.count == 4 else { return }
        // Bounds do not wrap (TileJSON 3.0); the centre is on the data, near 180°, not at 0.
        #expect(v[0] <= -178 && v[1] >= 178, "\(v)")
        #expect(abs(v[2]) > 170, "\(v)")
        // Both sides kept: 20 east (171…178.6) and 20 west (−179…−171.4); the 5 at longitude 0 are outside.
        #expect(v[3] == 40, "\(v)")
        // The client style opens there too.
        let sheet = dir.file("s.kss")
        try Data("* { class: x; }\n".utf8).write(to: URL(fileURLWithPath: sheet))
        let st = try runKartpack(["style", sheet, "--package", out, "-o", dir.file("map/style.json")])
        #expect(st.status == 0, "\(st.stderr)")
        let style = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: dir.file("map/style.json"))))
        let centre = ((style as? [String: Any])?["center"] as? [Double]) ?? []
        #expect(centre.count == 2 && abs(centre[0]) > 170, "\(centre)")
        // Extract still wants W < E.
        let x = try runKartpack(["extract", out, "--bbox", "170,-25,-170,-10", "-o", dir.file("p.pmtiles")])
        #expect(x.status == 64)
    }

    @Test func validateReportsSchemaAndFileProblemsInOnePass() throws {
        let dir = try TemporaryDirectory()
        let pipeline = """
            { "version": 1, "sources": [ { "path": "missing.shp", "layer": "x" } ],
              "tiles": { "minZoom": 0, "maxZoom": 14, "simplfy": 2 }, "output": { "path": "o.pmtiles" } }
            """
        try Data(pipeline.utf8).write(to: URL(fileURLWithPath: dir.file("p.json")))
        let r = try runKartpack(["validate", dir.file("p.json")])
        #expect(r.status == 78)
        let all = r.stdout + r.stderr
        #expect(all.contains("simplfy"), "\(all)")
        #expect(all.contains("missing.shp"), "\(all)")
    }

    @Test func inspectRefusesABadSourceCRSAsACommandLineError() throws {
        let r = try runKartpack([
            "inspect", RepositoryPaths.sampleForest.appendingPathComponent("vagar.shp").path, "--source-crs",
            "EPSG:99999999",
        ])
        #expect(r.status == 64, "\(r.stderr)")
    }
}
