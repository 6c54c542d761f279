import Foundation
import KartpackTestSupport
import Testing

/// `kartpack plan --split-zoom auto` splits below the max zoom when its estimate of the densest tile stays far
/// under the tile limits from that zoom up, and at the max zoom when it cannot tell (a `max-points` limit, tiles
/// near the limits); the merge stays the one-machine package. Without `--split-zoom` the split is the max zoom.
@Suite struct ShardChosenSplitZoomTests {
    /// The split zoom `kartpack plan` printed.
    static func splitZoom(_ stdout: String) -> Int? {
        guard let r = stdout.range(of: "split at zoom ") else { return nil }
        return Int(stdout[r.upperBound...].prefix { $0.isNumber })
    }

    @Test(arguments: [2, 3, 8])
    func theSampleSplitsBelowTheMaxZoomAndMergesByteIdentical(shards: Int) throws {
        let dir = try TemporaryDirectory()
        let options = ["--min-zoom", "6", "--max-zoom", "14"]
        let sample = ShardCommandTests.sample
        let expected = try ShardCommandTests.whole([sample], name: "forest.pmtiles", options: options, in: dir)
        let plan = dir.file("plan.json")
        let out = dir.file("forest.pmtiles")
        let plain = try runKartpack(
            ["plan", sample, "-o", out] + options + ["--shards", "\(shards)", "--plan", dir.file("plain.json")])
        #expect(Self.splitZoom(plain.stdout) == 14, "\(plain.stdout)")
        let p = try runKartpack(
            ["plan", sample, "-o", out] + options + ["--shards", "\(shards)", "--plan", plan, "--split-zoom", "auto"])
        #expect(p.status == 0, "\(p.stderr)")
        let z = try #require(Self.splitZoom(p.stdout), "\(p.stdout)")
        #expect(z < 14, "\(p.stdout)")
        #expect(p.stdout.contains("chosen from the estimate"), "\(p.stdout)")
        #expect(try ShardRun(plan: plan, shards: shards, tag: "auto", in: dir).merge(into: out) == expected)
    }

    /// Natural Earth with at most 4 features a tile is thinned at every zoom but the max, and cities with
    /// `--max-points` thin points: both plans keep the max zoom as the split zoom.
    @Test func thinnedOrPointLimitedZoomsKeepTheMaxZoom() throws {
        let dir = try TemporaryDirectory()
        let world = try runKartpack(
            [
                "plan", ShardCommandTests.world, "-o", dir.file("world.pmtiles"), "--max-zoom", "6",
                "--max-tile-features", "4", "--shards", "3", "--plan", dir.file("world.json"), "--split-zoom", "auto",
            ])
        #expect(world.status == 0, "\(world.stderr)")
        #expect(Self.splitZoom(world.stdout) == 6, "\(world.stdout)")
        let cities = RepositoryPaths.geopandasData.appendingPathComponent("naturalearth_cities/naturalearth_cities.shp")
        let limited = try runKartpack(
            [
                "plan", cities.path, "-o", dir.file("cities.pmtiles"), "--max-zoom", "6", "--max-points", "5",
                "--shards", "3", "--plan", dir.file("cities.json"), "--split-zoom", "auto",
            ])
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(Self.splitZoom(limited.stdout) == 6, "\(limited.stdout)")
        // Without the limit, the 243 cities are far under the limits at every zoom: split at the lowest.
        let free = try runKartpack(
            [
                "plan", cities.path, "-o", dir.file("cities.pmtiles"), "--max-zoom", "6", "--shards", "3", "--plan",
                dir.file("free.json"), "--split-zoom", "auto",
            ])
        #expect(free.status == 0, "\(free.stderr)")
        #expect(Self.splitZoom(free.stdout) == 0, "\(free.stdout)")
    }
}
