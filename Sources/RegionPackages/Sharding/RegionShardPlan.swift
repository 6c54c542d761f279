import Checksum
import Foundation
import KartpackCore
import KartpackJSON
import ConvertEngine
import PipelineFiles

/// A shard plan for `kartpack package` (`kartpack plan --package`): the package command line it splits (run from
/// `directory`), the inputs' fingerprint when it was made, and the region ids each shard builds. Shards take the
/// pipeline and options from the plan, so they cannot differ; a part records the plan's digest (SHA-256 of the file).
package struct RegionShardPlan: Sendable {
    /// The plan files' format, shared with `ShardPlan` (2 since convert plans hold key ranges a shard).
    static let formatVersion: Int64 = 2
    /// The working folder the arguments' relative paths are read from.
    package var directory: String
    /// `kartpack package` arguments without `--shards`/`--plan` and the run-only options: pipeline, options, `-o`.
    package var arguments: [String]
    /// The package folder the merge publishes, as `-o` (or the pipeline's regions section) gave it.
    package var output: String
    /// The fingerprint of the pipeline, its sources, stylesheet and regions (`ShardPlanner.fingerprint`).
    package var fingerprint: String
    /// Each shard's region ids, sorted.
    package var groups: [[String]]
    /// The Kartpack version that made the plan; shards of another version refuse it.
    package var kartpack: String = Kartpack.version
    /// Sources whose stored record boxes the plan does not trust: every shard reads them whole.
    package var untrustedBoxes = UntrustedRecordBoxes()
    /// The stamps of the files the fingerprint hashed (nil: none recorded, the shards hash).
    package var inputStamps: InputStamps?

    package init(directory: String, arguments: [String], output: String, fingerprint: String, groups: [[String]]) {
        self.directory = directory
        self.arguments = arguments
        self.output = output
        self.fingerprint = fingerprint
        self.groups = groups
    }

    /// Splits `regions` into `shards` groups of about equal cost, deterministically: the costliest region first
    /// (ties by id), each to the group with the least cost so far (ties to the lowest shard). A region's cost is
    /// the area of its polygons' bounding box in the regions file's units, plus a small constant so regions of no
    /// area still spread.
    package static func groups(_ regions: [RegionRecord], shards: Int) -> [[String]] {
        let costs = regions.map { r -> (id: String, cost: Double) in
            var box = Bounds.empty
            for p in r.polygons { if let b = p.bounds { box.include(b) } }
            let area = box.isEmpty ? 0 : (box.maxX - box.minX) * (box.maxY - box.minY)
            return (r.id, area.isFinite ? area : 0)
        }
        let unit = max(costs.reduce(0) { $0 + $1.cost } / Double(max(regions.count, 1)) / 100, 1e-9)
        let ordered = costs.sorted {
            $0.cost != $1.cost ? $0.cost > $1.cost : $0.id.utf8.lexicographicallyPrecedes($1.id.utf8)
        }
        var load = Array(repeating: 0.0, count: shards)
        var out = Array(repeating: [String](), count: shards)
        for r in ordered {
            let s = load.indices.min { load[$0] != load[$1] ? load[$0] < load[$1] : $0 < $1 } ?? 0
            load[s] += r.cost + unit
            out[s].append(r.id)
        }
        return out.map { $0.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
    }

    /// The plan file's text (pretty JSON, stable).
    package var text: String {
        let shards = groups.enumerated().map { i, ids -> JSONValue in
            .object([("shard", .int(Int64(i))), ("regions", .array(ids.map { .string($0) }))])
        }
        return JSONWriter.text(
            .object([
                ("kartpackShardPlan", .int(Self.formatVersion)), ("kartpack", .string(kartpack)),
                ("command", .string("package")), ("directory", .string(directory)),
                ("arguments", .array(arguments.map { .string($0) })), ("output", .string(output)),
                ("fingerprint", .string(fingerprint)), ("recordBoxesNotTrusted", untrustedBoxes.json),
                ("inputStamps", inputStamps?.json ?? .null), ("shards", .array(shards)),
            ]), format: .pretty)
    }

    /// Writes the plan (through a temporary file and a rename) and returns its digest.
    package func write(to path: String) throws -> String { try ShardPlan.write(text: text, to: path) }

    /// Reads a package plan and its digest; a plan of `convert`, of another version or damaged is refused (65).
    package static func read(path: String) throws -> (plan: RegionShardPlan, digest: String) {
        let (j, bytes) = try ShardPlan.readJSON(path: path)
        func bad(_ why: String) -> ShardError { .damaged(path: path, reason: why) }
        guard let command = j["command"]?.stringValue, command == "package" else {
            throw bad("a plan for `\(j["command"]?.stringValue ?? "?")`, not `package`")
        }
        guard let directory = j["directory"]?.stringValue,
            let args = j["arguments"]?.arrayValue?.compactMap(\.stringValue), let output = j["output"]?.stringValue,
            let fingerprint = j["fingerprint"]?.stringValue, let shards = j["shards"]?.arrayValue, !shards.isEmpty,
            let version = j["kartpack"]?.stringValue,
            let untrusted = UntrustedRecordBoxes(json: j["recordBoxesNotTrusted"])
        else { throw bad("a key is missing or has the wrong type") }
        var groups: [[String]] = []
        for (i, s) in shards.enumerated() {
            guard s["shard"]?.intValue == Int64(i), let ids = s["regions"]?.arrayValue?.compactMap(\.stringValue)
            else { throw bad("shard \(i) is not listed in order with its regions") }
            groups.append(ids)
        }
        let all = groups.flatMap { $0 }
        guard Set(all).count == all.count else { throw bad("a region is in two shards") }
        guard version == Kartpack.version else {
            throw bad("made by kartpack \(version); this is \(Kartpack.version): make the plan again")
        }
        var plan = RegionShardPlan(
            directory: directory, arguments: args, output: output, fingerprint: fingerprint, groups: groups)
        plan.kartpack = version
        plan.untrustedBoxes = untrusted
        plan.inputStamps = try InputStamps.read(j["inputStamps"], bad: bad)
        return (plan, SHA256.hex(of: bytes))
    }
}
