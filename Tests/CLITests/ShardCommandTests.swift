import Foundation
import KartpackTestSupport
import Testing

/// `kartpack plan`, `convert --plan --shard`, `merge`: the merged package is the one-machine package, byte for
/// byte, for any shard count; every way parts can fail to make one package is refused with exit 65 and nothing
/// published.
@Suite struct ShardCommandTests {
    static var sample: String { RepositoryPaths.sampleForest.path }
    static var world: String {
        RepositoryPaths.geopandasData.appendingPathComponent("naturalearth_lowres/naturalearth_lowres.shp").path
    }

    /// Plans `shards` shards of `convert inputs -o dir/name options`, builds each shard and merges; returns the
    /// merged bytes and the part paths.
    static func sharded(
        _ inputs: [String], name: String, options: [String], shards: Int, in dir: TemporaryDirectory,
        tag: String = "a"
    ) throws -> (bytes: Data, parts: [String], plan: String) {
        let plan = dir.file("plan-\(tag)-\(shards).json")
        let out = dir.file(name)
        let p = try runKartpack(["plan"] + inputs + ["-o", out] + options + ["--shards", "\(shards)", "--plan", plan])
        #expect(p.status == 0, "\(p.stderr)")
        let run = try ShardRun(
            plan: plan, shards: shards, tag: "\(tag)-\(shards)", in: dir, options: ["--threads", "2"])
        let bytes = try #require(try run.merge(into: out, reversed: true))
        try FileManager.default.removeItem(atPath: out)
        return (bytes, run.parts, plan)
    }

    static func whole(_ inputs: [String], name: String, options: [String], in dir: TemporaryDirectory) throws -> Data {
        let out = dir.file(name)
        let r = try runKartpack(["convert"] + inputs + ["-o", out, "--quiet"] + options)
        #expect(r.status == 0, "\(r.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
        try FileManager.default.removeItem(atPath: out)
        return bytes
    }

    @Test(arguments: [1, 2, 3, 8])
    func theSampleMergesByteIdenticalForAnyShardCount(shards: Int) throws {
        let dir = try TemporaryDirectory()
        let options = ["--max-zoom", "13"]
        let expected = try Self.whole([Self.sample], name: "forest.pmtiles", options: options, in: dir)
        let merged = try Self.sharded([Self.sample], name: "forest.pmtiles", options: options, shards: shards, in: dir)
        #expect(merged.bytes == expected, "\(shards) shards: \(merged.bytes.count) bytes, expected \(expected.count)")
    }

    /// Natural Earth's countries with at most 4 features a tile: every zoom below the max is thinned by one cut-off
    /// for the whole zoom, and zoom 5's tiles lie in two shards of 8, so each shard must find the same cut-off.
    @Test(arguments: [1, 2, 3, 8])
    func aRealWorldShapefileMergesByteIdentical(shards: Int) throws {
        let dir = try TemporaryDirectory()
        let options = ["--max-zoom", "6", "--max-tile-features", "4"]
        let expected = try Self.whole([Self.world], name: "world.pmtiles", options: options, in: dir)
        let merged = try Self.sharded([Self.world], name: "world.pmtiles", options: options, shards: shards, in: dir)
        #expect(merged.bytes == expected, "\(shards) shards: \(merged.bytes.count) bytes, expected \(expected.count)")
    }

    /// Cities and countries with `max-points`, coalescing and a feature limit: per-tile point choices and merged
    /// neighbours at every thinned zoom, the same in every shard.
    @Test func maxPointsAndCoalescingMergeByteIdentical() throws {
        let dir = try TemporaryDirectory()
        let cities = RepositoryPaths.geopandasData.appendingPathComponent(
            "naturalearth_cities/naturalearth_cities.shp"
        ).path
        let options = ["--max-zoom", "6", "--max-points", "2", "--coalesce", "--max-tile-features", "6"]
        let expected = try Self.whole([cities, Self.world], name: "places.pmtiles", options: options, in: dir)
        let merged = try Self.sharded(
            [cities, Self.world], name: "places.pmtiles", options: options, shards: 3, in: dir)
        #expect(merged.bytes == expected)
    }

    @Test func mbtilesMergesByteIdentical() throws {
        let dir = try TemporaryDirectory()
        let options = ["--max-zoom", "12", "--layer", "roads"]
        let inputs = [Self.sample + "/vagar.shp", Self.sample + "/avdelningar.shp"]
        let expected = try Self.whole(inputs, name: "forest.mbtiles", options: options, in: dir)
        let merged = try Self.sharded(inputs, name: "forest.mbtiles", options: options, shards: 3, in: dir)
        #expect(merged.bytes == expected)
    }

    /// Runs a merge that must be refused: exit 65, the message, nothing at the output.
    static func refused(_ parts: [String], out: String, saying text: String) throws {
        let r = try runKartpack(["merge"] + parts + ["-o", out])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains(text), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let left = try FileManager.default.contentsOfDirectory(atPath: (out as NSString).deletingLastPathComponent)
        #expect(!left.contains { $0.contains(".tmp-") }, "\(left)")
    }

    @Test func mergeRefusesPartsThatDoNotMakeOnePackage() throws {
        let dir = try TemporaryDirectory()
        let options = ["--max-zoom", "12"]
        let a = try Self.sharded([Self.sample], name: "forest.pmtiles", options: options, shards: 3, in: dir)
        let out = dir.file("forest.pmtiles")
        try Self.refused([a.parts[0], a.parts[2]], out: out, saying: "shard 1/3 is missing")
        try Self.refused(a.parts + [a.parts[1]], out: out, saying: "shard 1/3 is given twice")
        // Another plan of the same inputs with another option: its parts do not mix with the first plan's.
        let b = try Self.sharded(
            [Self.sample], name: "forest.pmtiles", options: ["--max-zoom", "11"], shards: 3, in: dir, tag: "b")
        try Self.refused([a.parts[0], b.parts[1], a.parts[2]], out: out, saying: "another plan")
        // A part whose range was moved to overlap the shard before it (header edited, same length).
        let overlapping = dir.file("overlap.kpart")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: a.parts[1]))
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
        let from = try #require(text.range(of: #""from":"(\d+)""#, options: .regularExpression))
        let digits = text[from].dropFirst(8).dropLast()
        let moved = "\"from\":\"" + String(repeating: "0", count: digits.count - 1) + "1\""
        bytes.replaceSubrange(
            text.utf8.distance(
                from: text.startIndex, to: from.lowerBound)..<text.utf8.distance(
                    from: text.startIndex, to: from.upperBound),
            with: Data(moved.utf8))
        try bytes.write(to: URL(fileURLWithPath: overlapping))
        try Self.refused([a.parts[0], overlapping, a.parts[2]], out: out, saying: "overlap")
        // A part cut short.
        let cut = dir.file("cut.kpart")
        let whole = try Data(contentsOf: URL(fileURLWithPath: a.parts[2]))
        try whole.prefix(whole.count - 40).write(to: URL(fileURLWithPath: cut))
        try Self.refused([a.parts[0], a.parts[1], cut], out: out, saying: "not a Kartpack shard file")
        // The plan's file name only: the metadata is named after it.
        let renamed = try runKartpack(["merge"] + a.parts + ["-o", dir.file("other.pmtiles")])
        #expect(renamed.status == 64, "\(renamed.stderr)")
        // And the parts as they are still merge.
        let ok = try runKartpack(["merge"] + a.parts + ["-o", out])
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test func aShardRefusesInputsChangedSinceThePlanAndOptionsOfItsOwn() throws {
        let dir = try TemporaryDirectory()
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            try FileManager.default.copyItem(
                atPath: Self.sample + "/vagar.\(ext)", toPath: dir.file("vagar.\(ext)"))
        }
        let plan = dir.file("plan.json")
        let p = try runKartpack(
            [
                "plan", "vagar.shp", "-o", "roads.pmtiles", "--max-zoom", "10", "--shards", "2", "--plan", plan,
            ], currentDirectory: dir.path)
        #expect(p.status == 0, "\(p.stderr)")
        // Run from another folder: the plan's relative paths are read from the plan's folder.
        let part = dir.file("p0.kpart")
        let ok = try runKartpack(["convert", "--plan", plan, "--shard", "0/2", "-o", part, "--quiet"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let own = try runKartpack(["convert", "--plan", plan, "--shard", "1/2", "-o", part, "--max-zoom", "9"])
        #expect(own.status == 64, "\(own.stderr)")
        let wrongCount = try runKartpack(["convert", "--plan", plan, "--shard", "1/3", "-o", dir.file("p1.kpart")])
        #expect(wrongCount.status == 64, "\(wrongCount.stderr)")
        let prj = try String(contentsOfFile: dir.file("vagar.prj"), encoding: .utf8)
        try (prj + "\n").write(toFile: dir.file("vagar.prj"), atomically: true, encoding: .utf8)
        let changed = try runKartpack(["convert", "--plan", plan, "--shard", "1/2", "-o", dir.file("p1.kpart")])
        #expect(changed.status == 65, "\(changed.stderr)")
        #expect(changed.stderr.contains("inputs changed"), "\(changed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("p1.kpart")))
    }
}
