import Foundation
import KartpackTestSupport
import Testing

/// `import` and the reader agree with docs/diagnostics.md: null shapes are counted, not errors (issue 12); memo
/// files travel with their set (issue 15).
@Suite struct ImportReaderTests {
    private func copyCase(_ name: String, to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let src = RepositoryPaths.root.appendingPathComponent("SampleData/hostile/\(name)")
        for f in try FileManager.default.contentsOfDirectory(atPath: src.path) {
            try FileManager.default.copyItem(atPath: src.appendingPathComponent(f).path, toPath: folder + "/" + f)
        }
    }

    @Test func nullShapesAreCountedButAreNotAnError() throws {
        let dir = try TemporaryDirectory()
        try copyCase("record_null", to: dir.file("export"))
        let r = try runKartpack(["import", dir.file("export"), "-o", dir.file("x.pmtiles"), "--max-zoom", "6"])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        #expect(r.stdout.contains("null_geometry 1"), "\(r.stdout)")
        // A record skipped for a data problem still makes the import exit 65.
        let bad = try TemporaryDirectory()
        try copyCase("coordinate_nan", to: bad.file("export"))
        let b = try runKartpack(["import", bad.file("export"), "-o", bad.file("x.pmtiles"), "--max-zoom", "6"])
        #expect(b.status == 65, "\(b.stdout)")
        #expect(b.stdout.contains("non_finite_coordinate 1"))
    }

    @Test func memoFilesAreFoundInAnImport() throws {
        let dir = try TemporaryDirectory()
        try copyCase("dbf_memo_dbt3", to: dir.file("export/Sub"))
        let out = dir.file("x.pmtiles")
        let r = try runKartpack([
            "import", dir.file("export"), "-o", out, "--max-zoom", "6", "--report", dir.file("r.json"),
        ])
        #expect(r.status == 0, "\(r.stdout)\n\(r.stderr)")
        let report = try String(contentsOfFile: dir.file("r.json"), encoding: .utf8)
        #expect(!report.contains("memo_file_missing"), "\(report)")
        let tile = try runKartpack(["inspect", out, "--tile", "6/35/18", "--format", "json"])
        #expect(tile.stdout.contains("first note") && tile.stdout.contains("second note"), "\(tile.stdout.prefix(400))")
    }
}
