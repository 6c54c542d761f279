import Foundation
import KartpackTestSupport
import Testing

/// A layer whose file has no records (issue 36): one empty layer of a GIS export no longer stops the others from
/// publishing; it is warned and counted, and a pipeline source's `requireFeatures` still stops the publish.
@Suite struct EmptyLayerCommandTests {
    private func makePipeline(_ dir: TemporaryDirectory) throws -> String {
        let data = dir.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            try FileManager.default.copyItem(
                atPath: RepositoryPaths.sampleForest.appendingPathComponent("vagar.\(ext)").path,
                toPath: "\(data)/vagar.\(ext)")
        }
        var empty = ShapefileFixture(shapeType: .polyLine, shapes: [])
        empty.fields = [.init("NAME", "C", width: 10)]
        _ = try empty.write(to: data, baseName: "empty")
        try FileManager.default.copyItem(atPath: "\(data)/vagar.prj", toPath: "\(data)/empty.prj")
        let json = """
            { "version": 1, "sources": [ { "path": "data/vagar.shp", "layer": "vagar" },
                                         { "path": "data/empty.shp", "layer": "empty" } ],
              "tiles": { "minZoom": 8, "maxZoom": 10 },
              "output": { "path": "out/plan.pmtiles", "name": "Empty layer" } }
            """
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        let path = dir.file("plan.json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func anEmptyLayerIsPublishedWithAWarningUnlessFeaturesAreRequired() throws {
        let dir = try TemporaryDirectory()
        let plan = try makePipeline(dir)
        let r = try runKartpack(["run", plan, "--report", dir.file("r.json")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("empty") && r.stderr.contains("has no features"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("out/plan.pmtiles")))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("r.json"))))
        let text = String(describing: report)
        #expect(text.contains("empty_layer"), "the report keeps the reader's warning")

        let required = try runKartpack(["run", plan, "--force", "--set", "sources[1].requireFeatures=true"])
        #expect(required.status == 65, "\(required.stderr)")
        #expect(required.stderr.contains("[no_features]"), "\(required.stderr)")
    }

    @Test func convertReadsAnEmptyLayerBesideAFullOne() throws {
        let dir = try TemporaryDirectory()
        _ = try makePipeline(dir)
        let r = try runKartpack(
            ["convert", "data/vagar.shp", "data/empty.shp", "-o", dir.file("c.pmtiles"), "--max-zoom", "10"],
            currentDirectory: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("no records"), "\(r.stderr)")
    }
}
