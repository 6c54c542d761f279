import Foundation
import KartpackTestSupport
import Testing

/// Paths given as bare names, run in the folder that holds them: `package --report whole.json` trapped in
/// Foundation's `deletingLastPathComponent` ("." has no parent on Linux: exit 132); every job must take a bare
/// or one-letter name like any other path.
@Suite struct BareNameCommandTests {
    @Test func packageWritesItsReportUnderABareName() throws {
        let dir = try TemporaryDirectory(prefix: "bare-name")
        let r = try runKartpack(
            [
                "package", RepositoryPaths.root.appendingPathComponent("Pipelines/forest-plan.json").path,
                "--regions", RepositoryPaths.sampleForest.appendingPathComponent("kommuner.shp").path,
                "--id-field", "KOMMUNKOD", "--max-zoom", "9", "-o", "o", "--report", "whole.json", "--quiet",
            ], currentDirectory: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let report = try String(contentsOfFile: dir.file("whole.json"), encoding: .utf8)
        #expect(report.contains("\"published\" : true") || report.contains("\"published\": true"), "\(report)")
    }

    @Test func convertAndRunTakeOneLetterNames() throws {
        let dir = try TemporaryDirectory(prefix: "bare-name")
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            try FileManager.default.copyItem(
                atPath: RepositoryPaths.sampleForest.appendingPathComponent("fornminnen.\(ext)").path,
                toPath: dir.file("f.\(ext)"))
        }
        let c = try runKartpack(
            ["convert", "f.shp", "-o", "p.pmtiles", "--max-zoom", "6", "--report", "r", "--quiet"],
            currentDirectory: dir.path)
        #expect(c.status == 0, "\(c.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("p.pmtiles")))
    }
}
