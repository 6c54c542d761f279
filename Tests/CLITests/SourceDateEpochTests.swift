import Foundation
import KartpackTestSupport
import Testing

/// `SOURCE_DATE_EPOCH` fixes the times a `package` night writes (the catalog's `created`, each region's `built`, the
/// signature's trusted timestamp), so two builds of the same inputs give the same bytes, catalog and signature
/// included: one machine and the merge of a plan's shards alike. A value that is not a time is a usage error (64)
/// and builds nothing.
@Suite struct SourceDateEpochTests {
    static let epoch = ["SOURCE_DATE_EPOCH": "1700000000"]
    static let stamp = "2023-11-14T22:13:20Z"

    /// Every time in a catalog.json: `created` and each region's `built`.
    static func times(_ folder: String) throws -> [String] {
        let text = try String(contentsOfFile: folder + "/catalog.json", encoding: .utf8)
        let pattern = try Regex(#""(?:created|built)": "([^"]*)""#)
        return text.matches(of: pattern).map { String($0.output[1].substring ?? "") }
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func twoSignedNightsAtTheSameFixedTimeGiveTheSameCatalogAndSignature() throws {
        let dir = try TemporaryDirectory()
        let command = try PackageShardTests.setUp(dir)
        let key = dir.file("k.key")
        let g = try runProcess("/usr/bin/minisign", ["-G", "-W", "-p", dir.file("k.pub"), "-s", key])
        #expect(g.status == 0, "\(g.stderr)")
        for out in ["a", "b"] {
            let r = try runKartpack(
                ["package"] + command + ["--sign", key, "-o", out, "--quiet"], currentDirectory: dir.path,
                environment: Self.epoch)
            #expect(r.status == 0, "\(r.stderr)")
            sleep(1)  // a clock that leaked in would show as another second
        }
        let times = try Self.times(dir.file("a"))
        #expect(times.count > 3)
        #expect(Set(times) == [Self.stamp], "\(times)")
        #expect(try Self.bytes(dir.file("a/catalog.json")) == Self.bytes(dir.file("b/catalog.json")))
        #expect(
            try Self.bytes(dir.file("a/catalog.json.minisig")) == Self.bytes(dir.file("b/catalog.json.minisig")))
        let signature = try String(contentsOfFile: dir.file("a/catalog.json.minisig"), encoding: .utf8)
        #expect(signature.contains("timestamp:1700000000\t"), "\(signature)")
        #expect(try runKartpack(["verify", dir.file("a"), "--pubkey", dir.file("k.pub")]).status == 0)
    }

    @Test func aMergeOfShardsAtTheFixedTimeIsTheOneMachineFolderByteForByte() throws {
        let dir = try TemporaryDirectory()
        let command = try PackageShardTests.setUp(dir)
        let whole = try runKartpack(
            ["package"] + command + ["-o", "whole", "--quiet"], currentDirectory: dir.path, environment: Self.epoch)
        #expect(whole.status == 0, "\(whole.stderr)")
        let plan = dir.file("shard-plan.json")
        let p = try runKartpack(
            ["plan", "--package"] + command + ["-o", "merged", "--shards", "2", "--plan", plan],
            currentDirectory: dir.path)
        #expect(p.status == 0, "\(p.stderr)")
        var parts: [String] = []
        for i in 0..<2 {
            let part = dir.file("part-\(i)")
            parts.append(part)
            let s = try runKartpack(
                ["package", "--plan", plan, "--shard", "\(i)/2", "-o", part, "--quiet"], environment: Self.epoch)
            #expect(s.status == 0, "shard \(i): \(s.stderr)")
        }
        let m = try runKartpack(["package", "--plan", plan, "--merge"] + parts + ["--quiet"], environment: Self.epoch)
        #expect(m.status == 0, "\(m.stderr)")
        #expect(try Set(Self.times(dir.file("merged"))) == [Self.stamp])
        #expect(try Self.bytes(dir.file("merged/catalog.json")) == Self.bytes(dir.file("whole/catalog.json")))
        #expect(try PackageShardTests.packages(dir.file("merged")) == PackageShardTests.packages(dir.file("whole")))
    }

    @Test(arguments: ["", "soon", "-1", "1.5", "17e8", "253402300800", " 1700000000"])
    func aValueThatIsNotATimeIsAUsageErrorAndBuildsNothing(value: String) throws {
        let dir = try TemporaryDirectory()
        let command = try PackageShardTests.setUp(dir)
        let report = dir.file("report.json")
        let r = try runKartpack(
            ["package"] + command + ["-o", "out", "--quiet", "--report", report], currentDirectory: dir.path,
            environment: ["SOURCE_DATE_EPOCH": value])
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("SOURCE_DATE_EPOCH=\(value): not a whole number of seconds"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/catalog.json")))
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.contains("\"exitCode\": 64"), "\(text)")
    }
}
