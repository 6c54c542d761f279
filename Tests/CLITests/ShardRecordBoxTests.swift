import Foundation
import KartpackJSON
import KartpackTestSupport
import Testing

/// A range shard leaves a Shapefile record whose stored box cannot reach its tiles unread (`RecordBoxFilter`), and a
/// package shard one whose box reaches none of its regions: shown by a record whose parts are broken but whose box
/// is sound. One machine rejects it (`bad_part_layout`); only the shards that must read it do, the others count it
/// as `outsideShard` without decoding it; the merge is still the one-machine output.
@Suite struct ShardRecordBoxTests {
    /// Copies the sample's stands (`avdelningar`) to `dir/stands.*` and breaks the westernmost record: its first part
    /// starts at vertex 1 (`bad_part_layout` when decoded). Returns the `.shp` path.
    static func damagedStands(in dir: TemporaryDirectory) throws -> String {
        let (path, west) = try westernmostStand(in: dir, as: "stands")
        var shp = try Data(contentsOf: URL(fileURLWithPath: path))
        // Content: type 4, box 32, parts 4, points 4, then the part starts.
        shp.replaceSubrange(west + 8 + 44..<west + 8 + 48, with: [1, 0, 0, 0])
        try shp.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Copies the sample's stands (`avdelningar`) to `dir/NAME.*`; returns the `.shp` path and the byte offset of
    /// its westernmost record (by its stored box).
    static func westernmostStand(in dir: TemporaryDirectory, as name: String) throws -> (shp: String, offset: Int) {
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            try FileManager.default.copyItem(
                atPath: RepositoryPaths.sampleForest.appendingPathComponent("avdelningar.\(ext)").path,
                toPath: dir.file("\(name).\(ext)"))
        }
        let path = dir.file("\(name).shp")
        let shp = try Data(contentsOf: URL(fileURLWithPath: path))
        let shx = try Data(contentsOf: URL(fileURLWithPath: dir.file("\(name).shx")))
        func int32BE(_ d: Data, _ o: Int) -> Int { d[o..<o + 4].reduce(0) { $0 << 8 | Int($1) } }
        var west = (x: Double.infinity, offset: 0)
        for i in 0..<(shx.count - 100) / 8 {
            let offset = int32BE(shx, 100 + 8 * i) * 2
            let minX = doubleLE(shp, offset + 12)  // record header 8, shape type 4
            if minX < west.x { west = (minX, offset) }
        }
        return (path, west.offset)
    }

    /// The little-endian double at byte `o` of `d`.
    static func doubleLE(_ d: Data, _ o: Int) -> Double {
        Double(bitPattern: d[o..<o + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    /// The records an input report rejected as `bad_part_layout`, and those it left to other shards.
    static func counts(_ report: JSONValue?) -> (broken: Int, outside: Int) {
        let inputs = report?["inputs"]?.arrayValue ?? []
        return (
            inputs.reduce(0) { $0 + Int($1["rejected"]?["bad_part_layout"]?.intValue ?? 0) },
            inputs.reduce(0) { $0 + Int($1["outsideShard"]?.intValue ?? 0) }
        )
    }

    @Test func rangeShardsLeaveRecordsWhoseBoxMissesTheirTilesUndecoded() throws {
        let dir = try TemporaryDirectory()
        let stands = try Self.damagedStands(in: dir)
        let options = ["--min-zoom", "8", "--max-zoom", "14"]
        let out = dir.file("stands.pmtiles")
        let whole = try runKartpack(
            ["convert", stands, "-o", out, "--quiet", "--report", dir.file("whole.json")] + options)
        #expect(whole.status == 0, "\(whole.stderr)")
        let report = try JSONParser.parse([UInt8](Data(contentsOf: URL(fileURLWithPath: dir.file("whole.json")))))
        #expect(Self.counts(report).broken == 1)
        let expected = try Data(contentsOf: URL(fileURLWithPath: out))
        try FileManager.default.removeItem(atPath: out)

        let shards = 8
        let plan = dir.file("plan.json")
        let p = try runKartpack(
            ["plan", stands, "-o", out] + options + ["--shards", "\(shards)", "--plan", plan, "--split-zoom", "11"])
        #expect(p.status == 0, "\(p.stderr)")
        let run = try ShardRun(plan: plan, shards: shards, tag: "box", in: dir)
        var read: [Int] = []  // the range shards that decoded the broken record
        for (i, report) in run.reports.enumerated() {
            let c = Self.counts(report)
            if i == 0 {
                #expect(c.broken == 1 && c.outside == 0, "the first shard reads every record")
            } else {
                if c.broken == 1 { read.append(i) } else { #expect(c.outside > 0) }
            }
        }
        // The broken stand lies in a few range shards' tiles: those decode and reject it, the others never read it.
        #expect(!read.isEmpty)
        #expect(read.count < shards - 1, "every range shard decoded the record: \(read)")
        #expect(try run.merge(into: out) == expected)
    }

    @Test func packageShardsLeaveRecordsWhoseBoxMissesTheirRegionsUndecoded() throws {
        let dir = try TemporaryDirectory()
        let command = try PackageShardTests.setUp(dir)
        // The pipeline reads data/avdelningar.shp: break its westernmost stand.
        let stands = try Self.damagedStands(in: dir)
        for ext in ["shp", "shx"] {
            try FileManager.default.removeItem(atPath: dir.file("data/avdelningar.\(ext)"))
            try FileManager.default.moveItem(
                atPath: (stands as NSString).deletingPathExtension + ".\(ext)",
                toPath: dir.file("data/avdelningar.\(ext)"))
        }
        let whole = try runKartpack(
            ["package"] + command + ["-o", "whole", "--quiet", "--report", dir.file("whole.json")],
            currentDirectory: dir.path)
        #expect(whole.status == 0, "\(whole.stderr)")
        let report = try JSONParser.parse([UInt8](Data(contentsOf: URL(fileURLWithPath: dir.file("whole.json")))))
        #expect(Self.counts(report).broken == 1)

        let shards = 3
        let (plan, _) = try ShardUntrustedBoxTests.packagePlan(command, shards: shards, in: dir)
        var parts: [String] = []
        var left = 0  // shards that never decoded the broken stand
        for i in 0..<shards {
            let part = dir.file("part-\(i)")
            let json = dir.file("report-\(i).json")
            let s = try runKartpack(
                ["package", "--plan", plan, "--shard", "\(i)/\(shards)", "-o", part, "--quiet", "--report", json])
            #expect(s.status == 0, "shard \(i): \(s.stderr)")
            let c = Self.counts(try JSONParser.parse([UInt8](Data(contentsOf: URL(fileURLWithPath: json)))))
            if c.broken == 0 {
                #expect(c.outside > 0, "shard \(i) neither decoded the stand nor left it")
                left += 1
            }
            parts.append(part)
        }
        #expect(left > 0, "every shard decoded the broken stand")
        #expect(left < shards, "no shard decoded the broken stand")
        let m = try runKartpack(["package", "--plan", plan, "--merge"] + parts + ["--quiet"])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(try PackageShardTests.packages(dir.file("merged")) == PackageShardTests.packages(dir.file("whole")))
        #expect(
            try PackageShardTests.catalogText(dir.file("merged")) == PackageShardTests.catalogText(dir.file("whole")))
    }
}
