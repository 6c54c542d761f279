import Foundation
import KartpackTestSupport
import Testing

/// Region ids become file names: ids that are one file on the case-insensitive file systems of tablets' cards
/// (FAT, exFAT), macOS and Windows, and Windows device names, are refused naming the records, by `package` and by
/// `validate` of a pipeline's regions section.
@Suite struct PackageFileNameTests {
    let base = PackageCommandTests()

    /// A region file made from the sample properties with id RID given per row (0-based) by `ids`, else `r<row>`.
    func regionFile(_ dir: TemporaryDirectory, name: String, ids: [Int: String]) throws -> String {
        let path = dir.file("data/\(name).shp")
        let cases = ids.map { "WHEN rowid = \($0.key) THEN '\($0.value)'" }.joined(separator: " ")
        let r = try runProcess(
            "/usr/bin/ogr2ogr",
            [
                "-q", "-dialect", "sqlite", "-nln", name, path, dir.file("data/fastigheter.shp"), "-sql",
                "SELECT geometry, CASE \(cases) ELSE 'r' || rowid END AS RID FROM fastigheter",
            ])
        #expect(r.status == 0, "\(r.stderr)")
        return path
    }

    @Test func idsDifferingOnlyInCaseAndDeviceNamesAreRefused() throws {
        let dir = try TemporaryDirectory()
        let plan = try base.setUp(dir)
        let out = dir.file("out")
        let clash = try regionFile(dir, name: "clash", ids: [1: "Nord-1", 4: "nord-1"])
        let c = try runKartpack(["package", plan, "--regions", clash, "--id-field", "RID", "-o", out])
        #expect(c.status == 65, "\(c.stderr)")
        #expect(
            c.stderr.contains("record 5: region id 'nord-1' differs from 'Nord-1' of record 2 only in case"),
            "\(c.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/catalog.json"))

        let device = try regionFile(dir, name: "device", ids: [2: "nul"])
        let d = try runKartpack(["package", plan, "--regions", device, "--id-field", "RID", "-o", out])
        #expect(d.status == 65, "\(d.stderr)")
        #expect(d.stderr.contains("record 3: region id 'nul' is a device name on Windows"), "\(d.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/nul.pmtiles"))

        // The pipeline's regions section is checked the same way by validate.
        let section = try base.setUp(
            dir, extra: #", "regions": { "path": "data/clash.shp", "idField": "RID", "output": "out" }"#,
            name: "section.json")
        let v = try runKartpack(["validate", section])
        #expect(v.status != 0)
        #expect(v.stdout.contains("differs from 'Nord-1'") || v.stderr.contains("differs from 'Nord-1'"), "\(v.stderr)")

        // Ids differing in more than case are fine, and each file name is the id.
        let fine = try regionFile(dir, name: "fine", ids: [1: "Nord-1", 4: "Nord-2"])
        let ok = try runKartpack(["package", plan, "--regions", fine, "--id-field", "RID", "-o", out, "--quiet"])
        #expect(ok.status == 0, "\(ok.stderr)")
        for entry in try base.regions(out) {
            #expect(entry["file"] as? String == "\(entry["id"] as? String ?? "").pmtiles")
        }
    }
}
