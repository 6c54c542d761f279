import Foundation
import KartpackJSON
import KartpackTestSupport
import Testing

/// What a user reads, pinned as golden files (`Golden/`): every `--help`, the sample's `inspect --format json`, the
/// `validate` reports and the sample job's convert report. `KARTPACK_RECORD=1 swift test` rewrites them.
@Suite struct GoldenOutputTests {
    static let commands = [
        "convert", "import", "run", "inspect", "validate", "style", "preview", "package", "verify", "extract", "query",
        "serve", "plan", "merge",
    ]

    /// Compares with the golden file, machine-specific folders replaced by `<root>` and `<tmp>`.
    private func expectGolden(
        _ text: String, _ name: String, tmp: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var t = text.replacingOccurrences(of: RepositoryPaths.root.path, with: "<root>")
        if let tmp { t = t.replacingOccurrences(of: tmp, with: "<tmp>") }
        if let m = Golden.mismatch(t, named: name) {
            Issue.record(Comment(rawValue: m), sourceLocation: sourceLocation)
        }
    }

    @Test func everyHelpText() throws {
        let main = try runKartpack(["--help"])
        #expect(main.status == 0)
        expectGolden(main.stdout, "help.txt")
        for c in Self.commands {
            let r = try runKartpack([c, "--help"])
            #expect(r.status == 0, "\(c)")
            expectGolden(r.stdout, "help-\(c).txt")
        }
    }

    @Test func inspectOfTheSampleShapefiles() throws {
        let r = try runKartpack(
            ["inspect", "SampleData/forest", "--format", "json"], currentDirectory: RepositoryPaths.root.path)
        #expect(r.status == 0, "\(r.stderr)")
        expectGolden(r.stdout, "inspect-sample.json")
    }

    @Test func validateReports() throws {
        let root = RepositoryPaths.root.path
        // The sample pipeline in a copy of the checkout's layout whose out/ exists.
        let copy = try TemporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: copy.file("Pipelines"), withIntermediateDirectories: true)
        try fm.createDirectory(atPath: copy.file("out"), withIntermediateDirectories: true)
        try fm.copyItem(atPath: root + "/Pipelines/forest-plan.json", toPath: copy.file("Pipelines/forest-plan.json"))
        try fm.createSymbolicLink(atPath: copy.file("SampleData"), withDestinationPath: root + "/SampleData")
        let pipeline = try runKartpack(["validate", "Pipelines/forest-plan.json"], currentDirectory: copy.path)
        #expect(pipeline.status == 0, "\(pipeline.stderr)")
        expectGolden(pipeline.stdout + pipeline.stderr, "validate-pipeline.txt", tmp: copy.path)
        let layers = ["avdelningar", "fastigheter", "fornminnen", "hansyn", "kommuner", "vagar"].map {
            "SampleData/forest/\($0).shp"
        }
        let sheet = try runKartpack(
            ["validate", "SampleData/forest.kss", "--layers"] + layers + ["--format", "json"], currentDirectory: root)
        #expect(sheet.status == 0, "\(sheet.stderr)")
        expectGolden(sheet.stdout, "validate-sheet.json")
        // A broken pipeline: every problem at once, with line and column.
        let dir = try TemporaryDirectory()
        let bad = dir.file("bad.json")
        try Data(
            """
            {
              "version": 1,
              "sources": [ { "path": "nowhere.shp", "minzom": 3 } ],
              "tiles": { "maxZoom": 40 },
              "output": { "path": "out/x.pmtiles" }
            }

            """.utf8
        ).write(to: URL(fileURLWithPath: bad))
        let broken = try runKartpack(["validate", "bad.json"], currentDirectory: dir.path)
        #expect(broken.status == 78)
        expectGolden(broken.stdout + broken.stderr, "validate-broken-pipeline.txt", tmp: dir.path)
    }

    @Test func theSampleConvertReport() throws {
        let dir = try TemporaryDirectory()
        let root = RepositoryPaths.root.path
        let layers = ["kommuner", "fastigheter", "avdelningar", "hansyn", "vagar", "fornminnen"].map {
            "SampleData/forest/\($0).shp"
        }
        let out = dir.file("sample.pmtiles")
        let report = dir.file("report.json")
        let r = try runKartpack(
            ["convert"] + layers + [
                "-o", out, "--style", "SampleData/forest.kss", "--min-zoom", "8", "--max-zoom", "14", "--quiet",
                "--report", report,
            ], currentDirectory: root)
        #expect(r.status == 0, "\(r.stderr)")
        // Times, peak memory and the temporary output path are left out: the rest is deterministic.
        let text = try String(contentsOfFile: report, encoding: .utf8)
        guard case .object(let members) = try JSONParser.parse(text) else {
            Issue.record("the report is not a JSON object")
            return
        }
        let stable = JSONValue.object(
            members.filter { !["seconds", "timings", "output", "peakRSSBytes"].contains($0.key) })
        expectGolden(stable.sortingKeys().text(.pretty), "convert-report-sample.json")
        let inspect = try runKartpack(["inspect", out, "--format", "json"])
        #expect(inspect.status == 0)
        guard case .object(let info) = try JSONParser.parse(inspect.stdout) else { return }
        expectGolden(
            JSONValue.object(info.filter { $0.key != "path" }).sortingKeys().text(.pretty),
            "inspect-sample-package.json")
    }
}
