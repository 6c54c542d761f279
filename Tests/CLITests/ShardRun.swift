import Foundation
import KartpackJSON
import KartpackTestSupport
import Testing

/// The walk the shard tests share: every shard of a `convert` plan built (`convert --plan P --shard i/N`, each with
/// a report), then the parts merged.
struct ShardRun {
    /// The parts, in shard order.
    var parts: [String] = []
    /// Each shard's `--report`, in shard order (nil when it could not be read).
    var reports: [JSONValue?] = []

    /// Builds shard `i` of `plan` into `part` with a report; returns the exit status, stderr and the report.
    static func shard(
        _ i: Int, of n: Int, plan: String, part: String, in dir: TemporaryDirectory, options: [String] = []
    ) throws -> (status: Int32, stderr: String, report: JSONValue?) {
        let report = dir.file("report-\(i).json")
        let r = try runKartpack(
            ["convert", "--plan", plan, "--shard", "\(i)/\(n)", "-o", part, "--quiet", "--report", report] + options)
        let json = FileManager.default.contents(atPath: report).flatMap { try? JSONParser.parse([UInt8]($0)) }
        return (r.status, r.stderr, json)
    }

    /// Builds all `shards` shards of `plan` into `dir/TAG-part-i.kpart` (`options` added to each command); every
    /// shard is expected to succeed.
    init(plan: String, shards: Int, tag: String, in dir: TemporaryDirectory, options: [String] = []) throws {
        for i in 0..<shards {
            let part = dir.file("\(tag)-part-\(i).kpart")
            let r = try Self.shard(i, of: shards, plan: plan, part: part, in: dir, options: options)
            #expect(r.status == 0, "shard \(i)/\(shards): \(r.stderr)")
            parts.append(part)
            reports.append(r.report)
        }
    }

    /// Merges the parts (last shard first with `reversed`: the merge must not depend on the order it is given)
    /// into `out`, replacing it; returns the merged bytes (nil when the merge failed, which is an issue).
    func merge(into out: String, reversed: Bool = false) throws -> Data? {
        let m = try attemptMerge(into: out, reversed: reversed)
        #expect(m.status == 0, "\(m.stderr)")
        return m.bytes
    }

    /// Merges as `merge` does, without expecting it to succeed: the exit status, stderr and the merged bytes (nil
    /// when it failed).
    func attemptMerge(into out: String, reversed: Bool = false) throws -> (status: Int32, stderr: String, bytes: Data?)
    {
        let m = try runKartpack(["merge"] + (reversed ? parts.reversed() : parts) + ["-o", out, "--force"])
        return (m.status, m.stderr, m.status == 0 ? try Data(contentsOf: URL(fileURLWithPath: out)) : nil)
    }
}
