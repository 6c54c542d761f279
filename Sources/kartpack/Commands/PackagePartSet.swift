import Foundation
import KartpackCore
import KartpackJSON
import ConvertEngine
import RegionPackages

/// The part folders given to `kartpack package --plan PLAN.json --merge PARTDIR…`, checked as a set before anything
/// is written: each holds `shard.json` of this plan (its digest and the plan's fingerprint), every shard of the plan
/// exactly once, each with a region summary (`RegionPartSummary`) that fingerprints exactly its group's regions,
/// matches its catalog, and names the inputs as the other parts do. Otherwise the merge is refused (exit 65) and
/// nothing is published.
enum PackagePartSet {
    /// The part of each of the plan's regions.
    static func check(_ folders: [String], plan: RegionShardPlan, digest: String) throws
        -> [String: RegionPackager.Part]
    {
        let n = plan.groups.count
        var byShard: [Int: String] = [:]
        for folder in folders {
            let path = folder + "/shard.json"
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ShardError.missing(path: path, reason: "not a finished package part (no shard.json)")
            }
            guard let j = try? JSONParser.parse([UInt8](data)), j["kartpackPackagePart"]?.intValue == 1,
                let shard = j["shard"]?.intValue, let shards = j["shards"]?.intValue,
                let planned = j["plan"]?.stringValue, let fingerprint = j["fingerprint"]?.stringValue
            else { throw ShardError.damaged(path: path, reason: "not a package part's shard.json") }
            guard planned == digest, Int(shards) == n, fingerprint == plan.fingerprint else {
                throw ShardError.partsDoNotFit(
                    reason: "\(folder) was built from another plan (\(planned.prefix(12)), not \(digest.prefix(12)))")
            }
            let i = Int(shard)
            if let first = byShard[i] {
                throw ShardError.partsDoNotFit(reason: "shard \(i)/\(n) is given twice: \(first) and \(folder)")
            }
            byShard[i] = folder
        }
        var out: [String: RegionPackager.Part] = [:]
        var first: RegionPackager.Part?
        for i in 0..<n {
            guard let folder = byShard[i] else { throw ShardError.partsDoNotFit(reason: "shard \(i)/\(n) is missing") }
            let part = try RegionPackager.Part(folder: folder)
            // The part fingerprinted exactly its group's regions, and read the inputs as every other shard did.
            guard Set(part.summary.fingerprints.keys) == Set(plan.groups[i]) else {
                throw ShardError.partsDoNotFit(reason: "\(folder) does not hold the regions of shard \(i)/\(n)")
            }
            if let first, !part.summary.agrees(with: first.summary) {
                throw ShardError.partsDoNotFit(
                    reason: "\(folder) and \(first.folder) read the inputs differently (a source rejected, or the "
                        + "max zoom chosen, in one and not the other)")
            }
            first = first ?? part
            for id in plan.groups[i] { out[id] = part }
        }
        return out
    }
}
