import Foundation
import KartpackTestSupport
import Testing

/// A package shard's part folder used again: by a rerun of the same shard, and by tonight's plan of other groups
/// (another shard count) after last night's. The part drops the regions its shard no longer builds instead of
/// refusing them as removals (`region_removed`: the merge alone decides the night's removals), and the merge is
/// still the one-machine night.
@Suite struct PackageShardReuseTests {
    @Test func partFoldersOfAnotherPlanAreReused() throws {
        let dir = try TemporaryDirectory()
        let command = try PackageShardTests.setUp(dir)
        let whole = try runKartpack(["package"] + command + ["-o", "whole", "--quiet"], currentDirectory: dir.path)
        #expect(whole.status == 0, "\(whole.stderr)")

        func plan(_ shards: Int) throws -> String {
            let plan = dir.file("shard-plan-\(shards).json")
            let p = try runKartpack(
                ["plan", "--package"] + command + ["-o", "merged", "--shards", "\(shards)", "--plan", plan],
                currentDirectory: dir.path)
            #expect(p.status == 0, "\(p.stderr)")
            return plan
        }
        func shard(_ i: Int, of n: Int, plan: String) throws {
            let s = try runKartpack(["package", "--plan", plan, "--shard", "\(i)/\(n)", "-o", dir.file("part-\(i)")])
            #expect(s.status == 0, "shard \(i)/\(n) into a used part folder: \(s.stderr)")
            #expect(!s.stderr.contains("region_removed"), "\(s.stderr)")
        }
        // Last night: 2 shards, shard 0 twice into the same folder.
        let last = try plan(2)
        for i in [0, 0, 1] { try shard(i, of: 2, plan: last) }
        // Tonight: 3 shards into the same folders (other groups).
        let tonight = try plan(3)
        for i in 0..<3 { try shard(i, of: 3, plan: tonight) }
        let manifest = try String(contentsOfFile: dir.file("part-0/shard.json"), encoding: .utf8)
        #expect(manifest.contains("\"shards\": 3"), "\(manifest)")
        let parts = (0..<3).map { dir.file("part-\($0)") }
        let m = try runKartpack(["package", "--plan", tonight, "--merge"] + parts + ["--quiet"])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(try PackageShardTests.packages(dir.file("merged")) == PackageShardTests.packages(dir.file("whole")))
    }
}
