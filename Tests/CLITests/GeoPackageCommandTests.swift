import Foundation
import KartpackTestSupport
import Testing

/// GeoPackage input through the real binary (issue 39): GeoPackages written by `ogr2ogr -f GPKG` from the sample
/// Shapefiles, read by `convert`, `inspect`, `import`, `run` and `package`, and hostile ones refused clearly.
@Suite struct GeoPackageCommandTests {
    /// `forest.gpkg` in `dir` with the given sample layers, one table each.
    func geoPackage(_ dir: TemporaryDirectory, _ layers: [String], name: String = "forest.gpkg") throws -> String {
        let path = dir.file(name)
        for layer in layers {
            let shp = RepositoryPaths.sampleForest.appendingPathComponent("\(layer).shp").path
            let mode = FileManager.default.fileExists(atPath: path) ? ["-update"] : []
            let r = try runProcess("/usr/bin/ogr2ogr", ["-q", "-f", "GPKG"] + mode + ["-nln", layer, path, shp])
            #expect(r.status == 0, "\(r.stderr)")
        }
        return path
    }

    func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
    }

    func inputs(_ report: [String: Any]) -> [[String: Any]] { report["inputs"] as? [[String: Any]] ?? [] }

    @Test func convertReadsEveryTableOrTheOneLayerNamed() throws {
        let dir = try TemporaryDirectory()
        let gpkg = try geoPackage(dir, ["kommuner", "vagar"])
        let all = try runKartpack([
            "convert", gpkg, "-o", dir.file("all.pmtiles"), "--max-zoom", "9", "--report", dir.file("all.json"),
            "--quiet",
        ])
        #expect(all.status == 0, "\(all.stderr)")
        let report = inputs(try json(dir.file("all.json")))
        #expect(report.map { $0["layer"] as? String } == ["kommuner", "vagar"])
        #expect(report.allSatisfy { $0["crs"] as? String == "EPSG:3006" && $0["path"] as? String == gpkg })
        for i in report {
            let rejected = (i["rejected"] as? [String: Int] ?? [:]).values.reduce(0, +)
            #expect(i["records"] as? Int == (i["written"] as? Int ?? -1) + rejected, "every record accounted for")
        }
        let byName = try runKartpack([
            "convert", gpkg, "--layer", "VAGAR", "-o", dir.file("one.pmtiles"), "--max-zoom", "9", "--report",
            dir.file("one.json"), "--quiet",
        ])
        #expect(byName.status == 0, "\(byName.stderr)")
        #expect(inputs(try json(dir.file("one.json"))).map { $0["layer"] as? String } == ["vagar"])
        let missing = try runKartpack(["convert", gpkg, "--layer", "sjoar", "-o", dir.file("no.pmtiles"), "--quiet"])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains(#"forest.gpkg: no feature table "sjoar"; the file has "kommuner", "vagar""#))
        #expect(!FileManager.default.fileExists(atPath: dir.file("no.pmtiles")))
    }

    @Test func inspectListsTablesWithTypeSRSCountsAndFields() throws {
        let dir = try TemporaryDirectory()
        let gpkg = try geoPackage(dir, ["fornminnen", "kommuner"])
        let r = try runKartpack(["inspect", gpkg, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] ?? [:]
        let layers = doc["layers"] as? [[String: Any]] ?? []
        #expect(layers.map { $0["name"] as? String } == ["fornminnen", "kommuner"])
        #expect(layers.map { $0["shapeType"] as? String } == ["POINT", "POLYGON"], "as ogr2ogr declares them")
        #expect(layers.allSatisfy { ($0["crs"] as? [String: Any])?["epsg"] as? Int == 3006 })
        #expect(layers.allSatisfy { $0["recordsSource"] as? String == "gpkg" && ($0["records"] as? Int ?? 0) > 0 })
        let fields = (layers[1]["fields"] as? [[String: Any]] ?? []).map { $0["name"] as? String }
        #expect(fields.contains("KOMMUNKOD") && !fields.contains("fid") && !fields.contains("geom"))
        let text = try runKartpack(["inspect", gpkg])
        #expect(text.status == 0 && text.stdout.contains("kommuner"))
    }

    @Test func importFindsGeoPackagesInAFolderBesideShapefiles() throws {
        let dir = try TemporaryDirectory()
        let export = dir.file("export")
        try FileManager.default.createDirectory(atPath: export + "/sub", withIntermediateDirectories: true)
        _ = try geoPackage(dir, ["hansyn"], name: "export/sub/plan.GPKG")
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            try FileManager.default.copyItem(
                atPath: RepositoryPaths.sampleForest.appendingPathComponent("kommuner.\(ext)").path,
                toPath: "\(export)/kommuner.\(ext)")
        }
        let r = try runKartpack([
            "import", export, "-o", dir.file("i.pmtiles"), "--max-zoom", "9", "--report", dir.file("i.json"),
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(inputs(try json(dir.file("i.json"))).map { $0["layer"] as? String } == ["kommuner", "hansyn"])
        // A GeoPackage with changes still in its -wal is refused; the summary counts layers, not Shapefiles.
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: export + "/sub/plan.GPKG-wal"))
        let refused = try runKartpack(["import", export, "-o", dir.file("j.pmtiles"), "--max-zoom", "9"])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("1 of 2 input layers rejected; nothing was published"), "\(refused.stderr)")
    }

    @Test func pipelineSourcesAndRegionsFromAGeoPackage() throws {
        let dir = try TemporaryDirectory()
        _ = try geoPackage(dir, ["kommuner", "vagar", "fornminnen"])
        _ = try geoPackage(dir, ["kommuner"], name: "regions.gpkg")
        let plan = dir.file("plan.json")
        try Data(
            """
            { "version": 1,
              "sources": [ { "path": "forest.gpkg", "layer": "vagar" }, { "path": "forest.gpkg", "layer": "fornminnen",
                             "idField": "fid_like" } ],
              "tiles": { "minZoom": 8, "maxZoom": 10 },
              "output": { "path": "out.pmtiles" } }
            """.utf8
        ).write(to: URL(fileURLWithPath: plan))
        let bad = try runKartpack(["run", plan, "--quiet"])
        #expect(bad.status != 0 && bad.stderr.contains("fid_like"), "an unknown id field is named")
        try Data(
            """
            { "version": 1,
              "sources": [ { "path": "forest.gpkg", "layer": "vagar" },
                           { "path": "forest.gpkg", "layer": "fornminnen" } ],
              "tiles": { "minZoom": 8, "maxZoom": 10 },
              "output": { "path": "out.pmtiles" } }
            """.utf8
        ).write(to: URL(fileURLWithPath: plan))
        let run = try runKartpack(["run", plan, "--quiet", "--report", dir.file("run.json")])
        #expect(run.status == 0, "\(run.stderr)")
        let convert = try json(dir.file("run.json"))["conversion"] as? [String: Any] ?? [:]
        #expect(inputs(convert).map { $0["layer"] as? String } == ["vagar", "fornminnen"])
        let pkg = try runKartpack([
            "package", plan, "--regions", dir.file("regions.gpkg"), "--id-field", "KOMMUNKOD", "-o",
            dir.file("regions"), "--quiet",
        ])
        #expect(pkg.status == 0, "\(pkg.stderr)")
        let catalog = try json(dir.file("regions/catalog.json"))
        let ids = (catalog["regions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids == ["2404", "2409", "2460", "2480"])
    }

    @Test func pendingWALIsRefusedNamingTheSidecar() throws {
        let dir = try TemporaryDirectory()
        let gpkg = try geoPackage(dir, ["vagar"])
        try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: gpkg + "-wal"))
        let r = try runKartpack(["convert", gpkg, "-o", dir.file("w.pmtiles"), "--max-zoom", "9", "--quiet"])
        #expect(r.status == 65)
        #expect(
            r.stderr.contains("forest.gpkg-wal holds 100 bytes of changes")
                && r.stderr.contains("[gpkg_pending_changes]"))
        let i = try runKartpack(["inspect", gpkg])
        #expect(i.status == 65 && i.stderr.contains("gpkg_pending_changes"))
    }
}
