import Foundation
import KartpackJSON
import KartpackTestSupport
import Testing

/// `kartpack plan --split-zoom Z`: the zooms below Z go whole to shard 0, the tiles of Z and up to the others, which
/// tile only the features near their tiles; the merge is still the one-machine package, and a split zoom that is
/// thinned is refused by the shard that sees it (exit 65, nothing written).
@Suite struct ShardSplitZoomTests {
    @Test(arguments: [2, 3, 8])
    func rangeShardsTileOnlyTheirFeaturesAndTheMergeIsTheOneMachinePackage(shards: Int) throws {
        let dir = try TemporaryDirectory()
        let options = ["--min-zoom", "8", "--max-zoom", "14"]
        let sample = ShardCommandTests.sample
        let expected = try ShardCommandTests.whole([sample], name: "forest.pmtiles", options: options, in: dir)
        let plan = dir.file("plan.json")
        let out = dir.file("forest.pmtiles")
        let p = try runKartpack(
            ["plan", sample, "-o", out] + options + ["--shards", "\(shards)", "--plan", plan, "--split-zoom", "11"])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(p.stdout.contains("split at zoom 11"), "\(p.stdout)")
        let run = try ShardRun(plan: plan, shards: shards, tag: "range", in: dir)
        var outside = 0
        for (i, report) in run.reports.enumerated() {
            let inputs = report?["inputs"]?.arrayValue ?? []
            let skipped = inputs.reduce(0) { $0 + Int($1["outsideShard"]?.intValue ?? 0) }
            if i == 0 { #expect(skipped == 0, "the first shard reads every feature") }
            outside += skipped
        }
        // Each range shard holds an area at every zoom from 11 up and leaves the features outside it to the others
        // (with one range shard it holds everything).
        if shards > 2 { #expect(outside > 0) }
        #expect(try run.merge(into: out) == expected)
        // Without the first shard's part there is no metadata: refused.
        try? FileManager.default.removeItem(atPath: out)
        try ShardCommandTests.refused(Array(run.parts.dropFirst()), out: out, saying: "shard 0/\(shards) is missing")
    }

    /// MBTiles' z/x/y order: a range shard's area is a strip of columns, one key range a zoom; the merge reads
    /// each part once and writes the zooms' strips in key order.
    @Test func mbtilesRangeShardsMergeTheOneMachinePackage() throws {
        let dir = try TemporaryDirectory()
        let options = ["--min-zoom", "8", "--max-zoom", "14"]
        let sample = [ShardCommandTests.sample]
        let expected = try ShardCommandTests.whole(sample, name: "forest.mbtiles", options: options, in: dir)
        let merged = try ShardCommandTests.sharded(
            sample, name: "forest.mbtiles", options: options + ["--split-zoom", "11"], shards: 4, in: dir)
        #expect(merged.bytes == expected)
    }

    /// Natural Earth with at most 4 features a tile thins every zoom below the max: split at zoom 3, the shards
    /// holding zooms 3–5 refuse, naming the zoom to split at instead.
    @Test func aThinnedSplitZoomIsRefused() throws {
        let dir = try TemporaryDirectory()
        let plan = dir.file("plan.json")
        let p = try runKartpack(
            [
                "plan", ShardCommandTests.world, "-o", dir.file("world.pmtiles"), "--max-zoom", "6",
                "--max-tile-features", "4", "--shards", "3", "--plan", plan, "--split-zoom", "3",
            ])
        #expect(p.status == 0, "\(p.stderr)")
        var refused = 0
        for i in 0..<3 {
            let part = dir.file("part-\(i).kpart")
            let r = try ShardRun.shard(i, of: 3, plan: plan, part: part, in: dir)
            if r.status == 65 {
                refused += 1
                #expect(r.stderr.contains("make the plan again with --split-zoom"), "\(r.stderr)")
                #expect(!FileManager.default.fileExists(atPath: part))
            } else {
                #expect(r.status == 0, "shard \(i): \(r.stderr)")
            }
        }
        #expect(refused > 0)
    }
}
