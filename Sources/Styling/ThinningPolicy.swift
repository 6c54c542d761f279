/// How the tile limits thin a feature (`thinning:` in a sheet, `"thinning"` of a pipeline source): the feature's
/// tier in the drop order. Every feature of a lower tier is dropped before any feature of a higher one, so a
/// higher tier is thinned around: its bytes and features count against the tile limits first.
public enum ThinningPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The default: thinned with everything else (tier 0).
    case auto
    /// Thinned only after every feature of a lower priority (`auto` is priority 0), by the run's thinning mode
    /// among its own tier.
    case priority(Int)
    /// Kept whole at every zoom it is shown, unless the protected features of a tile alone are over a limit: then
    /// they are thinned last, after every other feature (counted per zoom as `protectedDropped`).
    case never

    /// The priorities a sheet or a pipeline may give.
    public static let priorities = 0...1000

    /// Parses `auto`, `never` or `priority N` (N in `priorities`; words separated by spaces); nil otherwise.
    public init?(_ text: String) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        switch (words.count, words.first) {
        case (1, "auto"): self = .auto
        case (1, "never"): self = .never
        case (2, "priority"):
            guard let n = Int(words[1]), Self.priorities.contains(n) else { return nil }
            self = .priority(n)
        default: return nil
        }
    }

    /// The feature's tier: 0 for `auto`, N for `priority N`, above every priority for `never`.
    public var tier: Int16 {
        switch self {
        case .auto: 0
        case .priority(let n): Int16(n)
        case .never: Self.neverTier
        }
    }

    /// The tier of `never`.
    public static let neverTier = Int16.max

    /// The policy as written in a sheet.
    public var description: String {
        switch self {
        case .auto: "auto"
        case .priority(let n): "priority \(n)"
        case .never: "never"
        }
    }
}
