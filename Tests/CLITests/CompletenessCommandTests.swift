import Foundation
import KartpackTestSupport
import Testing

/// Issue 12 through the real binary: a package is complete or not published (`run`, `convert`, `import`), the
/// record-count guards, file names as the user gave them.
@Suite struct CompletenessCommandTests {
    /// A pipeline in `dir` over copies of sample layers in `dir/data`, output `dir/out/plan.pmtiles`.
    private func makePipeline(
        _ dir: TemporaryDirectory, layers: [String] = ["avdelningar", "vagar"], source: String = "", top: String = ""
    ) throws -> String {
        let data = dir.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for layer in layers {
            for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
                let to = "\(data)/\(layer).\(ext)"
                if FileManager.default.fileExists(atPath: to) { try FileManager.default.removeItem(atPath: to) }
                try FileManager.default.copyItem(
                    atPath: RepositoryPaths.sampleForest.appendingPathComponent("\(layer).\(ext)").path, toPath: to)
            }
        }
        let sources = layers.map { #"{ "path": "data/\#($0).shp", "layer": "\#($0)"\#(source) }"# }
        let json = """
            { "version": 1, "sources": [ \(sources.joined(separator: ", ")) ],
              "tiles": { "minZoom": 8, "maxZoom": 11 },
              "output": { "path": "out/plan.pmtiles", "name": "Test plan" }\(top) }
            """
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        let path = dir.file("plan.json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Breaks the dBASE version byte (0x04 = dBASE 7, which the reader rejects).
    private func breakDBF(_ path: String) throws {
        var d = try bytes(path)
        d[0] = 0x04
        try d.write(to: URL(fileURLWithPath: path))
    }

    private func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: bytes(path)) as? [String: Any])
    }

    /// The package metadata as `kartpack inspect --format json` shows it.
    private func metadata(_ package: String) throws -> [String: Any] {
        let r = try runKartpack(["inspect", package, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let info = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return try #require(info["metadata"] as? [String: Any])
    }

    private func missingLayers(_ package: String) throws -> [[String: Any]]? {
        guard let text = try metadata(package)["kartpack_missing_layers"] as? String else { return nil }
        return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]
    }

    private func temporaryFiles(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".tmp-") }
    }

    @Test func aBrokenDBFKeepsThePreviousPackageByteIdenticalAndSaysWhy() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir)
        let out = dir.file("out/plan.pmtiles")
        let good = try runKartpack(["run", plan, "--quiet"])
        #expect(good.status == 0, "\(good.stderr)")
        let previous = try bytes(out)

        try breakDBF(dir.file("data/avdelningar.dbf"))
        let r = try runKartpack(["run", plan, "--report", dir.file("r.json"), "--log-format", "json"])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(try bytes(out) == previous)
        #expect(try temporaryFiles(dir.file("out")).isEmpty)

        let report = try json(dir.file("r.json"))
        #expect(report["published"] as? Bool == false)
        #expect(report["exitCode"] as? Int == 65)
        let findings = try #require(report["findings"] as? [[String: Any]])
        #expect(findings.count == 1)
        #expect(findings.first?["code"] as? String == "bad_dbf_header")
        #expect(findings.first?["file"] as? String == "data/avdelningar.shp")
        #expect(findings.first?["severity"] as? String == "error")
        let missing = try #require(report["missingLayers"] as? [[String: Any]])
        #expect(missing.first?["layer"] as? String == "avdelningar")
        #expect((missing.first?["reason"] as? String)?.contains("data/avdelningar.dbf: bad .dbf header") == true)

        // Every stderr line is JSON; the rejection names the file as the pipeline gives it, in `file`.
        let lines = try r.stderr.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(
            lines.contains {
                $0["code"] as? String == "file_rejected" && $0["file"] as? String == "data/avdelningar.dbf"
            })
        #expect(
            lines.contains {
                $0["code"] as? String == "bad_dbf_header" && $0["file"] as? String == "data/avdelningar.shp"
                    && $0["level"] as? String == "error"
            })
        #expect(!r.stderr.contains(dir.file("data")), "absolute input paths in the log")
    }

    @Test func allowPartialPublishesAndListsTheMissingLayer() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir)
        let out = dir.file("out/plan.pmtiles")
        #expect(try runKartpack(["run", plan, "--quiet"]).status == 0)
        #expect(try missingLayers(out) == nil)
        try breakDBF(dir.file("data/avdelningar.dbf"))

        let r = try runKartpack(["run", plan, "--allow-partial", "--report", dir.file("r.json")])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("published without avdelningar"), "\(r.stderr)")
        let report = try json(dir.file("r.json"))
        #expect(report["published"] as? Bool == true)
        let missing = try #require(try missingLayers(out))
        #expect(missing.count == 1)
        #expect(missing.first?["layer"] as? String == "avdelningar")
        #expect(missing.first?["file"] as? String == "data/avdelningar.shp")
        #expect(missing.first?["code"] as? String == "bad_dbf_header")
        let layers = try #require(try metadata(out)["vector_layers"] as? String)
        #expect(layers.contains(#""id":"vagar""#) && !layers.contains("avdelningar"))
        #expect(try metadata(out)["name"] as? String == "Test plan")

        // The pipeline's own switch does the same; a repaired input publishes a complete package again.
        let skip = try runKartpack(["run", plan, "--force", "--quiet", "--set", "onInputError=skip"])
        #expect(skip.status == 65, "\(skip.stderr)")
        _ = try makePipeline(dir)
        let repaired = try runKartpack(["run", plan, "--quiet"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(try missingLayers(out) == nil)
    }

    /// An input rejected while its records are read (repeated ids: no probe before the build can see it) is listed
    /// in the package of one build: its rejection is said once, and the package lists it.
    @Test func anInputRejectedWhileReadIsListedByOneBuild() throws {
        let dir = try TemporaryDirectory()
        _ = try makePipeline(dir)
        let plan = dir.file("ids.json")
        let json = """
            { "version": 1, "onInputError": "skip",
              "sources": [ { "path": "data/avdelningar.shp", "layer": "avdelningar" },
                           { "path": "data/vagar.shp", "layer": "vagar", "idField": "KLASS" } ],
              "tiles": { "minZoom": 8, "maxZoom": 11 }, "output": { "path": "out/ids.pmtiles" } }
            """
        try Data(json.utf8).write(to: URL(fileURLWithPath: plan))
        let r = try runKartpack(["run", plan])
        #expect(r.status == 65, "\(r.stderr)")
        let said = r.stderr.components(separatedBy: "\n").filter { $0.contains("duplicate_id") && $0.contains("error") }
        #expect(said.count == 1, "\(r.stderr)")
        let missing = try #require(try missingLayers(dir.file("out/ids.pmtiles")))
        #expect(missing.map { $0["layer"] as? String } == ["vagar"], "\(missing)")
        #expect(missing.first?["code"] as? String == "duplicate_id", "\(missing)")
    }

    /// `run --report` is written on every exit path: a lock another run holds, and nothing left to write.
    @Test func runWritesItsReportWhenItFails() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir)
        let report = dir.file("r.json")
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-n", "-o", dir.file("out/plan.pmtiles.lock"), "sleep", "20"]
        try holder.run()
        usleep(300_000)
        let locked = try runKartpack(["run", plan, "--quiet", "--report", report])
        holder.terminate()
        holder.waitUntilExit()
        #expect(locked.status != 0, "\(locked.stderr)")
        var doc = try json(report)
        #expect(doc["published"] as? Bool == false && doc["exitCode"] as? Int == Int(locked.status), "\(doc)")
        var codes = ((doc["findings"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String }
        #expect(codes == ["run_failed"], "\(codes)")

        // Every input rejected: nothing to write, and the report still holds the conversion's counts.
        try breakDBF(dir.file("data/avdelningar.dbf"))
        try breakDBF(dir.file("data/vagar.dbf"))
        let empty = try runKartpack(["run", plan, "--quiet", "--allow-partial", "--report", report])
        #expect(empty.status == 65, "\(empty.stderr)")
        doc = try json(report)
        codes = ((doc["findings"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String }
        #expect(codes == ["nothing_to_write"], "\(codes)")
        #expect(doc["conversion"] != nil, "\(doc)")
    }

    @Test func theShrinkGuardRefusesATruncatedExport() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir, top: #", "maxShrink": 0.2"#)
        let out = dir.file("out/plan.pmtiles")
        #expect(try runKartpack(["run", plan, "--quiet"]).status == 0)
        let previous = try bytes(out)

        // A truncated export that still parses: GDAL writes the first 90 of the 129 stands.
        let data = dir.file("data")
        let cut = dir.file("cut")
        let g = try runProcess(
            "/usr/bin/ogr2ogr", ["-q", "-limit", "90", "-lco", "ENCODING=UTF-8", cut, "\(data)/avdelningar.shp"])
        #expect(g.status == 0, "\(g.stderr)")
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            try FileManager.default.removeItem(atPath: "\(data)/avdelningar.\(ext)")
            try FileManager.default.copyItem(atPath: "\(cut)/avdelningar.\(ext)", toPath: "\(data)/avdelningar.\(ext)")
        }
        let r = try runKartpack(["run", plan, "--report", dir.file("r.json")])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("layer_shrank"), "\(r.stderr)")
        #expect(try bytes(out) == previous)
        let findings = try #require(try json(dir.file("r.json"))["findings"] as? [[String: Any]])
        #expect(findings.map { $0["code"] as? String } == ["layer_shrank"])
        #expect((findings.first?["message"] as? String)?.contains("129") == true)

        // A looser guard lets it through.
        let loose = try runKartpack(["run", plan, "--quiet", "--set", "maxShrink=0.5"])
        #expect(loose.status == 0, "\(loose.stderr)")
        #expect(try bytes(out) != previous)
    }

    @Test func emptyLayersWarnOrStopAndMinFeaturesCounts() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir)
        let out = dir.file("out/plan.pmtiles")
        let nothing = #"sources[1].filter=[KLASS > 100]"#
        let warned = try runKartpack(["run", plan, "--set", nothing, "--report", dir.file("r.json")])
        #expect(warned.status == 0, "\(warned.stderr)")
        #expect(warned.stderr.contains("warning: sources[1] (vagar) has no features"), "\(warned.stderr)")
        let published = try bytes(out)

        let required = try runKartpack([
            "run", plan, "--force", "--set", nothing, "--set", "sources[1].requireFeatures=true",
        ])
        #expect(required.status == 65, "\(required.stderr)")
        #expect(required.stderr.contains("[no_features]"))
        #expect(try bytes(out) == published)

        let few = try runKartpack(["run", plan, "--force", "--set", "sources[1].minFeatures=31"])
        #expect(few.status == 65)
        #expect(few.stderr.contains("30 features, fewer than minFeatures 31"), "\(few.stderr)")
        #expect(try bytes(out) == published)
    }

    @Test func convertWithSeveralInputsPublishesOnlyWhenAllAreRead() throws {
        let dir = try TemporaryDirectory()
        _ = try makePipeline(dir)
        try breakDBF(dir.file("data/avdelningar.dbf"))
        let out = dir.file("out/c.pmtiles")
        let refused = try runKartpack(
            ["convert", "data/avdelningar.shp", "data/vagar.shp", "-o", out, "--max-zoom", "10"],
            currentDirectory: dir.path)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("data/avdelningar.dbf: bad .dbf header"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was published"))
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try temporaryFiles(dir.file("out")).isEmpty)

        let partial = try runKartpack(
            [
                "convert", "data/avdelningar.shp", "data/vagar.shp", "-o", out, "--max-zoom", "10", "--allow-partial",
                "--quiet",
            ],
            currentDirectory: dir.path)
        #expect(partial.status == 65, "\(partial.stderr)")
        let missing = try #require(try missingLayers(out))
        #expect(missing.first?["file"] as? String == "data/avdelningar.shp")
        // An existing output is still refused without --force (exit 73), before any work.
        let again = try runKartpack(["convert", "data/vagar.shp", "-o", out], currentDirectory: dir.path)
        #expect(again.status == 73)
    }

    @Test func rejectedFilesSayWhereTheirRecordCountComesFrom() throws {
        let dir = try TemporaryDirectory()
        _ = try makePipeline(dir)
        // A broken .dbf: the .shx still counts the 129 stands.
        try breakDBF(dir.file("data/avdelningar.dbf"))
        // Nothing countable: .shx and .dbf gone, the .shp cut inside its header.
        let shp = try Data(contentsOf: URL(fileURLWithPath: dir.file("data/vagar.shp")))
        try shp.prefix(60).write(to: URL(fileURLWithPath: dir.file("data/vagar.shp")))
        try FileManager.default.removeItem(atPath: dir.file("data/vagar.shx"))
        try FileManager.default.removeItem(atPath: dir.file("data/vagar.dbf"))
        let r = try runKartpack(
            [
                "convert", "data/avdelningar.shp", "data/vagar.shp", "-o", dir.file("out/c.pmtiles"), "--max-zoom",
                "10",
                "--report", dir.file("r.json"), "--quiet",
            ],
            currentDirectory: dir.path)
        #expect(r.status == 65, "\(r.stderr)")
        let inputs = try #require(try json(dir.file("r.json"))["inputs"] as? [[String: Any]])
        #expect(inputs.count == 2)
        #expect(inputs[0]["records"] as? Int == 129 && inputs[0]["recordsSource"] as? String == "shx")
        #expect((inputs[0]["rejected"] as? [String: Int]) == ["file_rejected": 129])
        #expect(inputs[1]["records"] as? Int == 0 && inputs[1]["recordsSource"] as? String == "unknown")
    }

    @Test func everyMessageOfAZipImportNamesThePathInsideTheZip() throws {
        let dir = try TemporaryDirectory()
        _ = try makePipeline(dir, layers: ["avdelningar", "vagar", "fornminnen"])
        try breakDBF(dir.file("data/avdelningar.dbf"))
        // fornminnen without .prj (a CRS rejection), vagar with a record the reader skips (a shape type 99).
        try FileManager.default.removeItem(atPath: dir.file("data/fornminnen.prj"))
        var shp = try bytes(dir.file("data/vagar.shp"))
        shp[108] = 99
        try shp.write(to: URL(fileURLWithPath: dir.file("data/vagar.shp")))
        let zip = dir.file("export.zip")
        let script = """
            import zipfile, sys, os
            z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)
            for name in sorted(os.listdir(sys.argv[2])):
                folder = 'Export/Skog/' if name.startswith('avdelningar') else 'Export/'
                z.write(os.path.join(sys.argv[2], name), folder + name)
            z.close()
            """
        let made = try runProcess("/usr/bin/python3", ["-c", script, zip, dir.file("data")])
        #expect(made.status == 0, "\(made.stderr)")
        let out = dir.file("out/z.pmtiles")
        let r = try runKartpack([
            "import", zip, "-o", out, "--max-zoom", "10", "--report", dir.file("r.json"), "--allow-partial",
        ])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("Export/Skog/avdelningar.dbf: bad .dbf header"), "\(r.stderr)")
        #expect(r.stderr.contains("Export/fornminnen.shp"), "\(r.stderr)")
        #expect(r.stderr.contains("Export/vagar.shp: record 1"), "\(r.stderr)")
        let report = try String(decoding: bytes(dir.file("r.json")), as: UTF8.self)
        for text in [r.stderr, r.stdout, report] {
            #expect(!text.contains("kartpack-import-"), "the temporary extraction folder leaked: \(text)")
            #expect(!text.contains(NSTemporaryDirectory() + "kartpack-import"), "\(text)")
        }
        let missing = try #require(try missingLayers(out))
        #expect(
            Set(missing.compactMap { $0["file"] as? String }) == [
                "Export/Skog/avdelningar.shp", "Export/fornminnen.shp",
            ])
    }

    @Test func validateReportsEveryProblemOfAPipelineInOnePass() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir, layers: ["avdelningar", "vagar"])
        try breakDBF(dir.file("data/avdelningar.dbf"))
        let r = try runKartpack([
            "validate", plan, "--set", #"sources[2]={"path":"data/nope.shp"}"#, "--set", "sources[1].filter=[KLAS > 2]",
            "--set", "sources[0].filter=[BESTTYP = ]", "--set", #"sources[1].keep=["NAMN","BREDDD"]"#,
            "--set", "sources[1].idField=BREDD",
        ])
        #expect(r.status == 78)
        for expected in [
            "sources[2].path: data/nope.shp: No such file or directory",
            "sources[0].filter: expected a value after '='",
            "sources[0].path: data/avdelningar.shp: data/avdelningar.dbf: bad .dbf header",
            "sources[1].filter: KLAS is not a field of vagar.shp", "did you mean KLASS?",
            "sources[1].keep[1]: BREDDD is not a field of vagar.shp; did you mean BREDD?",
            "sources[1].idField: id field BREDD: field BREDD is double",
        ] {
            #expect(r.stdout.contains(expected), "\(expected)\n\(r.stdout)")
        }
        #expect(r.stdout.contains("6 error(s)"), "\(r.stdout)")
    }

    @Test func setOutputPathChoosesTheFormatByItsExtension() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir, layers: ["vagar"], top: "")
        // The file says pmtiles; a --set path ending in .mbtiles writes MBTiles.
        var text = try String(decoding: bytes(plan), as: UTF8.self)
        text = text.replacingOccurrences(
            of: #""path": "out/plan.pmtiles""#, with: #""format": "pmtiles", "path": "out/plan.pmtiles""#)
        try Data(text.utf8).write(to: URL(fileURLWithPath: plan))
        let r = try runKartpack(["run", plan, "--quiet", "--set", "output.path=out/x.mbtiles"])
        #expect(r.status == 0, "\(r.stderr)")
        let head = try bytes(dir.file("out/x.mbtiles")).prefix(15)
        #expect(String(decoding: head, as: UTF8.self) == "SQLite format 3")
        let mismatch = try runKartpack([
            "validate", plan, "--set", "output.path=out/x.mbtiles", "--set", "output.format=pmtiles",
        ])
        #expect(mismatch.status == 78)
        #expect(mismatch.stdout.contains("does not match output.path"))
    }

    @Test func styleIntoAFolderThatCannotBeMadeSaysWhy() throws {
        let dir = try TemporaryDirectory()
        _ = try makePipeline(dir, layers: ["vagar"])
        let package = dir.file("v.pmtiles")
        #expect(
            try runKartpack(["convert", dir.file("data/vagar.shp"), "-o", package, "--max-zoom", "9", "--quiet"]).status
                == 0)
        let sheet = RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss").path
        let blocked = try runKartpack(["style", sheet, "--package", package, "-o", package + "/style/style.json"])
        #expect(blocked.status == 73, "\(blocked.stderr)")
        #expect(blocked.stderr.contains("\(package) is a file, not a folder"), "\(blocked.stderr)")
        let made = try runKartpack(["style", sheet, "--package", package, "-o", dir.file("new/deeper/style.json")])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("new/deeper/style.json")))
    }
}
