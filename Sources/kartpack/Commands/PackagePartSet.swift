import Foundation
import KartpackCore
import KartpackJSON
import ConvertEngine
import RegionPackages

/// The part folders given to `kartpack package --plan PLAN.json --merge PARTDIR…`, checked as a set before anything
/// is written: each holds `shard.json` of this plan (its digest and the plan's fingerprint), every shard of the plan
/// exactly once. Otherwise the merge is refused (exit 65) and nothing is published.
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
        for i in 0..<n {
            guard let folder = byShard[i] else { throw ShardError.partsDoNotFit(reason: "shard \(i)/\(n) is missing") }
            let part = try RegionPackager.Part(folder: folder)
            for id in plan.groups[i] { out[id] = part }
        }
        return out
    }
}
