import Foundation
import KartpackTestSupport
import Testing

/// Output layer names are claimed once (issue 33, `LayerRegistry`): two inputs, or an input and another's label
/// layer, that would write one layer are refused before anything is read, naming both files and how to rename.
@Suite struct LayerNameClashTests {
    /// Copies the sample set `layer` into `dir/sub/name.*`.
    static func copy(_ layer: String, to dir: TemporaryDirectory, _ sub: String, as name: String) throws -> String {
        let folder = dir.file(sub)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            let from = RepositoryPaths.sampleForest.appendingPathComponent("\(layer).\(ext)").path
            guard FileManager.default.fileExists(atPath: from) else { continue }
            try FileManager.default.copyItem(atPath: from, toPath: folder + "/\(name).\(ext)")
        }
        return folder + "/\(name).shp"
    }

    @Test func twoFilesOfOneNameAreRefusedUntilOneIsRenamed() throws {
        let dir = try TemporaryDirectory()
        let polygons = try Self.copy("kommuner", to: dir, "a", as: "x")
        let lines = try Self.copy("vagar", to: dir, "b", as: "x")
        let out = dir.file("m.pmtiles")
        let r = try runKartpack(["convert", polygons, lines, "-o", out, "--max-zoom", "8", "--quiet"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("layer name 'x' is claimed twice, by \(polygons) and by \(lines)"), "\(r.stderr)")
        #expect(r.stderr.contains("--layer NAME"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        let renamed = try runKartpack([
            "convert", polygons, lines, "--layer", "x", "--layer", "roads", "-o", out, "--max-zoom", "8", "--quiet",
        ])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        let info = try runKartpack(["inspect", out, "--format", "json"])
        #expect(info.stdout.contains("\"roads\"") && info.stdout.contains("\"x\""), "\(info.stdout)")
    }

    @Test func anInputNamedLikeAnotherInputsLabelLayerIsRefused() throws {
        let dir = try TemporaryDirectory()
        let kommuner = try Self.copy("kommuner", to: dir, "in", as: "kommuner")
        let labels = try Self.copy("fornminnen", to: dir, "in", as: "kommuner_labels")
        let style = RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss").path
        let out = dir.file("m.pmtiles")
        let args = ["convert", kommuner, labels, "--style", style, "-o", out, "--max-zoom", "8", "--quiet"]
        let r = try runKartpack(args)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(
            r.stderr.contains("'kommuner_labels' is claimed twice, by the label layer of \(kommuner) and by \(labels)"),
            "\(r.stderr)")
        // Without a label rule there is no label layer to clash with.
        let plain = try runKartpack(["convert", kommuner, labels, "-o", out, "--max-zoom", "8", "--quiet"])
        #expect(plain.status == 0, "\(plain.stderr)")
    }

    @Test func aPipelineSourceNamedLikeALabelLayerIsReportedByValidateAndRefusedByRun() throws {
        let dir = try TemporaryDirectory()
        _ = try Self.copy("kommuner", to: dir, "folder", as: "kommuner")
        _ = try Self.copy("fornminnen", to: dir, "folder", as: "kommuner_labels")
        let style = RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss").path
        let plan = dir.file("p.json")
        let text = """
            { "version": 1, "sources": [ { "path": "folder/kommuner.shp" }, { "path": "folder/kommuner_labels.shp" } ],
              "style": "\(style)",
              "tiles": { "maxZoom": 8 }, "output": { "path": "out.pmtiles" } }
            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: plan))
        let v = try runKartpack(["validate", plan])
        #expect(v.status == 78, "\(v.stdout)\(v.stderr)")
        #expect((v.stdout + v.stderr).contains("'kommuner_labels' is claimed twice"), "\(v.stdout)\(v.stderr)")
        let r = try runKartpack(["run", plan, "--quiet"])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.pmtiles")))
    }
}
