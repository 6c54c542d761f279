import Foundation
import KartpackJSON
import KartpackTestSupport
import Testing

/// A Shapefile record whose stored box does not hold its vertices (a broken or hostile export): shards leave
/// records unread by their box (`RecordBoxFilter`), so every shard would skip this one while one machine writes it.
/// The plan audits every record's box while it hashes it (`RecordBoxAudit`), lists the file under
/// `recordBoxesNotTrusted`, and every shard reads that file whole: the merge is the one-machine output. The same
/// shards run from the plan with that list emptied lose the record, so the tests can fail.
@Suite struct ShardUntrustedBoxTests {
    /// Copies the sample's stands to `dir/stands.*` and moves the westernmost record's stored box 1,000 km south of
    /// its vertices (which stay as they are), or with `east` by the width of the file's box, among the easternmost
    /// stands (in another range shard's tiles). Returns the `.shp` path.
    static func lyingStands(in dir: TemporaryDirectory, east: Bool = false) throws -> String {
        let (path, west) = try ShardRecordBoxTests.westernmostStand(in: dir, as: "stands")
        var shp = try Data(contentsOf: URL(fileURLWithPath: path))
        // Header: the file's Xmin at 36, Xmax at 52. Content: type 4, then Xmin, Ymin, Xmax, Ymax.
        let width = ShardRecordBoxTests.doubleLE(shp, 52) - ShardRecordBoxTests.doubleLE(shp, 36)
        for o in east ? [west + 8 + 4, west + 8 + 20] : [west + 8 + 12, west + 8 + 28] {
            let moved = ShardRecordBoxTests.doubleLE(shp, o) + (east ? width : -1_000_000)
            withUnsafeBytes(of: moved.bitPattern.littleEndian) { shp.replaceSubrange(o..<o + 8, with: $0) }
        }
        try shp.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The plan's `recordBoxesNotTrusted` entries.
    static func untrusted(_ plan: String) throws -> [JSONValue] {
        let json = try JSONParser.parse([UInt8](Data(contentsOf: URL(fileURLWithPath: plan))))
        return try #require(json["recordBoxesNotTrusted"]?.arrayValue)
    }

    /// A copy of `plan` with `recordBoxesNotTrusted` emptied (what a plan without the audit would say).
    static func trustingCopy(_ plan: String, in dir: TemporaryDirectory) throws -> String {
        let text = try String(contentsOfFile: plan, encoding: .utf8)
        let list = try Regex(#""recordBoxesNotTrusted" ?: ?\[[^\]]*\]"#)
        let trusting = text.replacing(list, with: #""recordBoxesNotTrusted": []"#)
        #expect(trusting != text)
        let path = dir.file("trusting-" + (plan as NSString).lastPathComponent)
        try trusting.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Plans the package `command` (output `merged`) in `dir` into `shard-plan.json` (plan.json is the pipeline).
    static func packagePlan(_ command: [String], shards: Int, in dir: TemporaryDirectory) throws
        -> (plan: String, stdout: String)
    {
        let plan = dir.file("shard-plan.json")
        let p = try runKartpack(
            ["plan", "--package"] + command + ["-o", "merged", "--shards", "\(shards)", "--plan", plan],
            currentDirectory: dir.path)
        #expect(p.status == 0, "\(p.stderr)")
        return (plan, p.stdout)
    }

    @Test func convertShardsReadAFileWithALyingBoxWhole() throws {
        let dir = try TemporaryDirectory()
        let sample = try ShardRecordBoxTests.westernmostStand(in: dir, as: "sample").shp
        let stands = try Self.lyingStands(in: dir, east: true)
        let options = ["--min-zoom", "8", "--max-zoom", "14"]
        let out = dir.file("stands.pmtiles")
        let whole = try runKartpack(["convert", stands, "-o", out, "--quiet"] + options)
        #expect(whole.status == 0, "\(whole.stderr)")
        let expected = try Data(contentsOf: URL(fileURLWithPath: out))
        try FileManager.default.removeItem(atPath: out)

        // An honest export is trusted.
        let honest = try runKartpack(
            ["plan", sample, "-o", out] + options + ["--shards", "2", "--plan", dir.file("honest.json")])
        #expect(honest.status == 0, "\(honest.stderr)")
        #expect(try Self.untrusted(dir.file("honest.json")).isEmpty)

        let shards = 8
        let plan = dir.file("plan.json")
        let p = try runKartpack(
            ["plan", stands, "-o", out] + options + ["--shards", "\(shards)", "--plan", plan, "--split-zoom", "11"])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(p.stdout.contains("stored box does not hold its vertices; every shard reads it whole"), "\(p.stdout)")
        let entries = try Self.untrusted(plan)
        #expect(entries.count == 1)
        #expect(entries.first?["file"]?.stringValue?.hasSuffix("/stands.shp") == true)

        func merged(_ plan: String, tag: String) throws -> Data? {
            try ShardRun(plan: plan, shards: shards, tag: tag, in: dir).merge(into: out)
        }
        #expect(try merged(plan, tag: "audited") == expected)
        // Trusting the lying box, every range shard leaves the stand unread: the merge refuses (no part tiled it at
        // the zooms the first shard leaves to the others) or, had a part noted it, misses it.
        let trusting = try ShardRun(plan: Self.trustingCopy(plan, in: dir), shards: shards, tag: "trusting", in: dir)
            .attemptMerge(into: out)
        #expect(trusting.bytes != expected)
        #expect(trusting.status == 0 || trusting.stderr.contains("no part tiled record"), "\(trusting.stderr)")
    }

    @Test func packageShardsReadASourceWithALyingBoxWhole() throws {
        let dir = try TemporaryDirectory()
        let command = try PackageShardTests.setUp(dir)
        // The pipeline reads data/avdelningar.shp: make one stand's box lie.
        let stands = try Self.lyingStands(in: dir)
        try FileManager.default.removeItem(atPath: dir.file("data/avdelningar.shp"))
        try FileManager.default.moveItem(atPath: stands, toPath: dir.file("data/avdelningar.shp"))
        let whole = try runKartpack(["package"] + command + ["-o", "whole", "--quiet"], currentDirectory: dir.path)
        #expect(whole.status == 0, "\(whole.stderr)")

        let shards = 3
        let (plan, stdout) = try Self.packagePlan(command, shards: shards, in: dir)
        #expect(stdout.contains("stored box does not hold its vertices"), "\(stdout)")

        let entries = try Self.untrusted(plan)
        #expect(entries.count == 1, "only the lying source: \(entries)")
        #expect(entries.first?["file"]?.stringValue?.hasSuffix("data/avdelningar.shp") == true)

        /// The merge's exit status and the merged packages.
        func merged(_ plan: String, tag: String) throws -> (status: Int32, packages: [String: [String]]?) {
            var parts: [String] = []
            for i in 0..<shards {
                let part = dir.file("\(tag)-part-\(i)")
                let s = try runKartpack(["package", "--plan", plan, "--shard", "\(i)/\(shards)", "-o", part, "--quiet"])
                #expect(s.status == 0, "shard \(i): \(s.stderr)")
                parts.append(part)
            }
            let m = try runKartpack(["package", "--plan", plan, "--merge"] + parts + ["--quiet"])
            return (m.status, m.status == 0 ? try PackageShardTests.packages(dir.file("merged")) : nil)
        }
        let wholePackages = try PackageShardTests.packages(dir.file("whole"))
        let audited = try merged(plan, tag: "audited")
        #expect(audited.status == 0)
        #expect(audited.packages == wholePackages)
        #expect(
            try PackageShardTests.catalogText(dir.file("merged")) == PackageShardTests.catalogText(dir.file("whole")))
        // Trusting the lying box, the shard whose region holds the stand leaves it unread: its package is not the
        // one-machine package (the merge refuses it, or publishes other bytes).
        try FileManager.default.removeItem(atPath: dir.file("merged"))
        let trusting = try merged(try Self.trustingCopy(plan, in: dir), tag: "trusting")
        #expect(trusting.status == 65 || trusting.packages != wholePackages)
    }
}
