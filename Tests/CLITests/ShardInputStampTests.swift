import Foundation
import KartpackTestSupport
import Testing

/// A plan records each hashed file's size, modification and change time and inode (`InputStamps`); a shard whose
/// files all still have them takes the plan's fingerprint instead of hashing every record again, and any
/// difference makes it hash as before. Seen through the binary with a plan whose fingerprint was forged: a shard
/// that trusts the stamps accepts it, one that hashes refuses it (65, "inputs changed").
@Suite struct ShardInputStampTests {
    /// Copies the sample's roads into `dir/data`; returns the command line to plan (without --shards/--plan).
    static func setUp(_ dir: TemporaryDirectory) throws -> [String] {
        try FileManager.default.createDirectory(atPath: dir.file("data"), withIntermediateDirectories: true)
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            try FileManager.default.copyItem(
                atPath: RepositoryPaths.sampleForest.appendingPathComponent("vagar.\(ext)").path,
                toPath: dir.file("data/vagar.\(ext)"))
        }
        return ["data/vagar.shp", "-o", "roads.pmtiles", "--max-zoom", "12"]
    }

    static func plan(_ command: [String], as name: String, in dir: TemporaryDirectory) throws -> String {
        let plan = dir.file(name)
        let p = try runKartpack(
            ["plan"] + command + ["--shards", "2", "--plan", plan], currentDirectory: dir.path)
        #expect(p.status == 0, "\(p.stderr)")
        return plan
    }

    /// A copy of `plan` with another fingerprint and, with `stamps` false, no stamps.
    static func forged(_ plan: String, stamps: Bool, in dir: TemporaryDirectory) throws -> String {
        var json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: plan))) as? [String: Any])
        json["fingerprint"] = String(repeating: "0", count: 64)
        if !stamps { json["inputStamps"] = NSNull() }
        let path = dir.file("forged-\(stamps)-" + (plan as NSString).lastPathComponent)
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func shard(_ plan: String, in dir: TemporaryDirectory) throws -> (status: Int32, stderr: String) {
        let r = try runKartpack(
            ["convert", "--plan", plan, "--shard", "1/2", "-o", dir.file("part.kpart"), "--force", "--quiet"])
        return (r.status, r.stderr)
    }

    /// The file's modification time, exactly.
    static func mtime(_ path: String) -> timespec {
        var s = stat()
        _ = stat(path, &s)
        return s.st_mtim
    }

    @Test func aShardTrustsUnchangedStampsAndHashesOtherwise() throws {
        let dir = try TemporaryDirectory()
        let command = try Self.setUp(dir)
        // Files changed less than two seconds before the plan are not trusted by their stamps (a change in the
        // same clock tick would not show).
        let racy = try Self.plan(command, as: "racy.json", in: dir)
        let racyText = try String(contentsOfFile: racy, encoding: .utf8)
        #expect(racyText.contains("\"inputStamps\": null"), "\(racyText)")
        Thread.sleep(forTimeInterval: 2.2)
        let plan = try Self.plan(command, as: "plan.json", in: dir)
        let text = try String(contentsOfFile: plan, encoding: .utf8)
        #expect(text.contains("\"file\": \"data/vagar.dbf\""), "\(text)")
        #expect(text.contains("\"ctimeNs\""), "\(text)")

        // Unchanged files: the shard takes the plan's fingerprint, even a forged one; without stamps it hashes.
        let trusted = try Self.forged(plan, stamps: true, in: dir)
        let hashing = try Self.forged(plan, stamps: false, in: dir)
        var r = try Self.shard(trusted, in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        r = try Self.shard(hashing, in: dir)
        #expect(r.status == 65 && r.stderr.contains("inputs changed"), "\(r.stderr)")
        r = try Self.shard(plan, in: dir)
        #expect(r.status == 0, "\(r.stderr)")

        // The .dbf rewritten with one byte changed, its size and modification time put back as they were: its
        // change time (ctime) differs, so the shard hashes and finds the change.
        let dbf = dir.file("data/vagar.dbf")
        let before = Self.mtime(dbf)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: dbf))
        let last = bytes.count - 2
        bytes[last] = bytes[last] == 0x41 ? 0x42 : 0x41
        try bytes.write(to: URL(fileURLWithPath: dbf))
        var times = [before, before]
        #expect(utimensat(AT_FDCWD, dbf, &times, 0) == 0)
        #expect(Self.mtime(dbf).tv_nsec == before.tv_nsec && Self.mtime(dbf).tv_sec == before.tv_sec)
        r = try Self.shard(plan, in: dir)
        #expect(r.status == 65 && r.stderr.contains("inputs changed"), "\(r.stderr)")
        r = try Self.shard(trusted, in: dir)
        #expect(r.status == 65, "the forged plan's stamps no longer match: \(r.stderr)")
    }
}
