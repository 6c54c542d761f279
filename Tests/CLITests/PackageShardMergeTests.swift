import Foundation
import KartpackTestSupport
import Testing

/// The package merge takes each region's fingerprint, the inputs and the chosen zoom from the shards' region
/// summaries (`shard-regions.json`) instead of reading the sources: it publishes the one-machine night with the
/// sources gone, and refuses (65, nothing published) a part whose summary is missing, does not match its catalog,
/// holds other regions than its shard's, or names the inputs differently from the other parts.
@Suite struct PackageShardMergeTests {
    @Test func theMergeReadsNoSource() throws {
        let dir = try TemporaryDirectory()
        let command = try PackageShardTests.setUp(dir)
        let whole = try runKartpack(["package"] + command + ["-o", "whole", "--quiet"], currentDirectory: dir.path)
        #expect(whole.status == 0, "\(whole.stderr)")
        let (plan, parts) = try PackageShardTests.shards(command, tag: "gone", in: dir)
        let summary = try String(contentsOfFile: parts[0] + "/shard-regions.json", encoding: .utf8)
        #expect(summary.contains("\"fingerprints\""), "\(summary)")
        // Every source's files removed (the regions file and the stylesheet stay): the shards read them.
        for layer in PackageCommandTests.layers {
            for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
                try FileManager.default.removeItem(atPath: dir.file("data/\(layer).\(ext)"))
            }
        }
        let report = dir.file("merge-report.json")
        let m = try runKartpack(["package", "--plan", plan, "--merge"] + parts + ["--quiet", "--report", report])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(try PackageShardTests.packages(dir.file("merged")) == PackageShardTests.packages(dir.file("whole")))
        let catalog = try PackageShardTests.catalogText(dir.file("merged"))
        #expect(try catalog == PackageShardTests.catalogText(dir.file("whole")))
        // The merge's report names every input with its records (the per-record counts are in the shards').
        let text = try String(contentsOfFile: report, encoding: .utf8)
        for layer in PackageCommandTests.layers { #expect(text.contains("data/\(layer).shp"), "\(layer)") }
    }

    @Test func theMergeRefusesATamperedPart() throws {
        let dir = try TemporaryDirectory()
        let command = try PackageShardTests.setUp(dir)
        let (plan, parts) = try PackageShardTests.shards(command, tag: "t", in: dir)
        let summaryPath = parts[1] + "/shard-regions.json"
        let original = try String(contentsOfFile: summaryPath, encoding: .utf8)
        func refused(saying text: String) throws {
            let r = try runKartpack(["package", "--plan", plan, "--merge"] + parts)
            #expect(r.status == 65, "\(r.stderr)")
            #expect(r.stderr.contains(text), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("merged/catalog.json")))
        }
        // A region's fingerprint changed: the part's package is not the one its summary fingerprints.
        let catalog = try Data(contentsOf: URL(fileURLWithPath: parts[1] + "/catalog.json"))
        let regions = try #require((try JSONSerialization.jsonObject(with: catalog) as? [String: Any])?["regions"])
        let fingerprint = try #require(((regions as? [[String: Any]])?.first?["fingerprint"]) as? String)
        #expect(original.contains(fingerprint))
        try original.replacingOccurrences(of: fingerprint, with: String(repeating: "0", count: 64)).write(
            toFile: summaryPath, atomically: true, encoding: .utf8)
        try refused(saying: "is not the one its region summary fingerprints")
        // A summary that lists another shard's regions.
        let other = try String(contentsOfFile: parts[0] + "/shard-regions.json", encoding: .utf8)
        try other.write(toFile: summaryPath, atomically: true, encoding: .utf8)
        try refused(saying: "part-t-1")
        // The inputs named differently (as if a source had been rejected by one shard only).
        var json = try #require(try JSONSerialization.jsonObject(with: Data(original.utf8)) as? [String: Any])
        var inputs = try #require(json["inputs"] as? [[String: Any]])
        inputs[0]["records"] = 123_456
        json["inputs"] = inputs
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: summaryPath))
        try refused(saying: "read the inputs differently")
        // No summary at all (a part of an older Kartpack).
        try FileManager.default.removeItem(atPath: summaryPath)
        try refused(saying: "region summary")
        // Restored: the merge publishes.
        try original.write(toFile: summaryPath, atomically: true, encoding: .utf8)
        let m = try runKartpack(["package", "--plan", plan, "--merge"] + parts + ["--quiet"])
        #expect(m.status == 0, "\(m.stderr)")
    }
}
