import KartpackCore

/// Why a shard plan, a shard or a merge of shard parts is refused. Parts that do not make one package (missing,
/// duplicate, overlapping, or from another plan) are bad data (exit 65): nothing is published.
package enum ShardError: KartpackError, Equatable {
    /// The plan or a part file is missing or unreadable.
    case missing(path: String, reason: String)
    /// The plan or a part file is not one Kartpack wrote, or is damaged.
    case damaged(path: String, reason: String)
    /// The inputs changed since the plan was made (their fingerprint differs).
    case inputsChanged(plan: String, planned: String, now: String)
    /// The parts do not make one package: the reason names the shards.
    case partsDoNotFit(reason: String)
    /// The shard asked for is not in the plan.
    case noSuchShard(index: Int, count: Int)
    /// The merge output does not match the plan (its name, its format).
    case wrongOutput(path: String, reason: String)
    /// A tile of a zoom split between shards is over a limit: that zoom would be thinned, which needs all its
    /// tiles in one shard.
    case thinnedAtSplitZoom(zoom: Int, splitZoom: Int, why: String)

    package var exitCode: ExitCode {
        switch self {
        case .missing: .noInput
        case .damaged, .inputsChanged, .partsDoNotFit, .thinnedAtSplitZoom: .dataError
        case .noSuchShard, .wrongOutput: .usage
        }
    }

    package var description: String {
        switch self {
        case .missing(let p, let r): "\(p): \(r)"
        case .damaged(let p, let r): "\(p): not a Kartpack shard file: \(r)"
        case .inputsChanged(let p, let planned, let now):
            "the inputs changed since \(p) was made (fingerprint \(planned.prefix(12)) planned, "
                + "\(now.prefix(12)) now): make a new plan and build every shard again"
        case .partsDoNotFit(let r): "the parts do not make one package: \(r); nothing was published"
        case .noSuchShard(let i, let n): "shard \(i)/\(n) is not in the plan"
        case .wrongOutput(let p, let r): "\(p): \(r)"
        case .thinnedAtSplitZoom(let z, let split, let why):
            "\(why), so zoom \(z) is thinned, but the plan splits the zooms from "
                + "\(split) up between shards (a thinned zoom needs all its tiles in one shard): make the plan again "
                + "with --split-zoom \(z + 1) or higher; nothing was written"
        }
    }
}
