import Foundation
import KartpackTestSupport
import Testing

/// `kartpack plan --package` and `package --plan --shard`: every shard builds exactly the packages one machine's
/// `package` builds for its regions (same bytes), the shards' regions are the whole set once, and a shard refuses
/// changed inputs (65), options of its own (64) and a plan of another command (65).
@Suite struct PackageShardTests {
    /// The sample pipeline over copies of the forest layers, packaged by property (`props.shp`, id PID), run from
    /// `dir`: the command line without `-o`.
    static func setUp(_ dir: TemporaryDirectory) throws -> [String] {
        _ = try PackageCommandTests().setUp(dir)
        return ["plan.json", "--regions", "data/props.shp", "--id-field", "PID"]
    }

    /// The region packages of a folder's catalog: id → (file, SHA-256).
    static func packages(_ folder: String) throws -> [String: [String]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/catalog.json"))
        let catalog = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let regions = try #require(catalog["regions"] as? [[String: Any]])
        var out: [String: [String]] = [:]
        for r in regions {
            let id = try #require(r["id"] as? String)
            let file = try #require(r["file"] as? String)
            let hash = try runProcess("/usr/bin/sha256sum", [folder + "/" + file])
            out[id] = [file, String(hash.stdout.prefix(64)), try #require(r["sha256"] as? String)]
        }
        return out
    }

    @Test(arguments: [1, 2, 3])
    func shardsBuildTheOneMachinePackages(shards: Int) throws {
        let dir = try TemporaryDirectory()
        let command = try Self.setUp(dir)
        let whole = try runKartpack(["package"] + command + ["-o", "whole", "--quiet"], currentDirectory: dir.path)
        #expect(whole.status == 0, "\(whole.stderr)")
        let expected = try Self.packages(dir.file("whole"))
        #expect(expected.count > 3)

        let plan = dir.file("plan-\(shards).json")
        let p = try runKartpack(
            ["plan", "--package"] + command + ["-o", "merged", "--shards", "\(shards)", "--plan", plan],
            currentDirectory: dir.path)
        #expect(p.status == 0, "\(p.stderr)")
        var built: [String: [String]] = [:]
        var parts: [String] = []
        for i in 0..<shards {
            // Run from another folder: the plan's relative paths are read from the plan's folder.
            let part = dir.file("part-\(shards)-\(i)")
            parts.append(part)
            let s = try runKartpack(["package", "--plan", plan, "--shard", "\(i)/\(shards)", "-o", part, "--quiet"])
            #expect(s.status == 0, "shard \(i)/\(shards): \(s.stderr)")
            let got = try Self.packages(part)
            if shards > 1 { #expect(got.count < expected.count, "shard \(i) built every region") }
            for (id, entry) in got {
                #expect(built[id] == nil, "region \(id) is in two shards")
                built[id] = entry
            }
            let manifest = try String(contentsOfFile: part + "/shard.json", encoding: .utf8)
            #expect(manifest.contains("\"shard\": \(i)"), "\(manifest)")
            #expect(!FileManager.default.fileExists(atPath: part + "/catalog.json.minisig"))
        }
        #expect(built == expected)

        // The merge publishes the plan's folder: the same packages and the same catalog as one machine's, but for
        // the times in it (when the catalog and each package were made).
        let m = try runKartpack(["package", "--plan", plan, "--merge"] + parts.reversed() + ["--quiet"])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(try Self.packages(dir.file("merged")) == expected)
        #expect(try Self.catalogText(dir.file("merged")) == Self.catalogText(dir.file("whole")))
    }

    /// The folder's catalog.json with its times masked.
    static func catalogText(_ folder: String) throws -> String {
        let text = try String(contentsOfFile: folder + "/catalog.json", encoding: .utf8)
        let times = try Regex(#""(created|built)": "[^"]*""#)
        return text.replacing(times, with: "TIME")
    }

    /// Plans `command` in `dir` with `extra` options, builds every shard; returns the plan and the part folders.
    static func shards(_ command: [String], extra: [String] = [], tag: String, in dir: TemporaryDirectory) throws
        -> (plan: String, parts: [String])
    {
        let plan = dir.file("plan-\(tag).json")
        let p = try runKartpack(
            ["plan", "--package"] + command + extra + ["-o", "merged", "--shards", "2", "--plan", plan],
            currentDirectory: dir.path)
        #expect(p.status == 0, "\(p.stderr)")
        let parts = [dir.file("part-\(tag)-0"), dir.file("part-\(tag)-1")]
        for (i, part) in parts.enumerated() {
            let s = try runKartpack(["package", "--plan", plan, "--shard", "\(i)/2", "-o", part, "--quiet"])
            #expect(s.status == 0, "\(s.stderr)")
        }
        return (plan, parts)
    }

    @Test func theMergeRefusesPartsThatDoNotMakeTheFolder() throws {
        let dir = try TemporaryDirectory()
        let command = try Self.setUp(dir)
        let a = try Self.shards(command, tag: "a", in: dir)
        let b = try Self.shards(command, extra: ["--buffer", "1"], tag: "b", in: dir)
        func refused(_ parts: [String], plan: String, saying text: String) throws {
            let r = try runKartpack(["package", "--plan", plan, "--merge"] + parts)
            #expect(r.status == 65, "\(r.stderr)")
            #expect(r.stderr.contains(text), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("merged/catalog.json")))
        }
        try refused([a.parts[0]], plan: a.plan, saying: "shard 1/2 is missing")
        try refused([a.parts[0], a.parts[1], a.parts[0]], plan: a.plan, saying: "given twice")
        try refused([a.parts[0], b.parts[1]], plan: a.plan, saying: "another plan")
        let own = try runKartpack(["package", "--plan", a.plan, "--merge"] + a.parts + ["--buffer", "2"])
        #expect(own.status == 64, "\(own.stderr)")
        // Parts whose region summaries disagree, or that lack one, are refused too (PackageShardMergeTests).
    }

    @Test func aShardRefusesChangedInputsOwnOptionsAndAnotherPlan() throws {
        let dir = try TemporaryDirectory()
        let command = try Self.setUp(dir)
        let plan = dir.file("plan-2.json")
        let p = try runKartpack(
            ["plan", "--package"] + command + ["-o", "merged", "--shards", "2", "--plan", plan],
            currentDirectory: dir.path)
        #expect(p.status == 0, "\(p.stderr)")
        let own = try runKartpack(
            ["package", "--plan", plan, "--shard", "1/2", "-o", dir.file("p1"), "--buffer", "5"])
        #expect(own.status == 64, "\(own.stderr)")
        let pipeline = try runKartpack(["package", "plan.json", "--plan", plan, "--shard", "1/2", "-o", dir.file("p1")])
        #expect(pipeline.status == 64, "\(pipeline.stderr)")
        let wrongCount = try runKartpack(["package", "--plan", plan, "--shard", "1/3", "-o", dir.file("p1")])
        #expect(wrongCount.status == 64, "\(wrongCount.stderr)")
        // A convert plan is not a package plan.
        let convertPlan = dir.file("convert-plan.json")
        let c = try runKartpack(
            ["plan", "data/vagar.shp", "-o", "roads.pmtiles", "--shards", "2", "--plan", convertPlan],
            currentDirectory: dir.path)
        #expect(c.status == 0, "\(c.stderr)")
        let foreign = try runKartpack(["package", "--plan", convertPlan, "--shard", "0/2", "-o", dir.file("p1")])
        #expect(foreign.status == 65, "\(foreign.stderr)")
        #expect(foreign.stderr.contains("not `package`"), "\(foreign.stderr)")
        // A region file changed since the plan: the shard refuses before building anything.
        let dbf = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.file("data/props.dbf")))
        try dbf.seekToEnd()
        try dbf.write(contentsOf: Data([0x1A]))
        try dbf.close()
        let changed = try runKartpack(["package", "--plan", plan, "--shard", "1/2", "-o", dir.file("p1")])
        #expect(changed.status == 65, "\(changed.stderr)")
        #expect(changed.stderr.contains("inputs changed"), "\(changed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("p1")))
        // And a source changed since the plan.
        let plan2 = dir.file("plan-2b.json")
        let q = try runKartpack(
            ["plan", "--package"] + command + ["-o", "merged", "--shards", "2", "--plan", plan2],
            currentDirectory: dir.path)
        #expect(q.status == 0, "\(q.stderr)")
        let prj = try String(contentsOfFile: dir.file("data/vagar.prj"), encoding: .utf8)
        try (prj + "\n").write(toFile: dir.file("data/vagar.prj"), atomically: true, encoding: .utf8)
        let source = try runKartpack(["package", "--plan", plan2, "--shard", "0/2", "-o", dir.file("p0")])
        #expect(source.status == 65, "\(source.stderr)")
        #expect(source.stderr.contains("inputs changed"), "\(source.stderr)")
    }
}
