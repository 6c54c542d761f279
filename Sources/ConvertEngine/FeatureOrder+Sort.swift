/// The sorts behind `FeatureOrder`, on packed keys: each feature's comparison fields copied once into a small
/// struct that compares without a closure or a lookup through the record tables, and ending in an index that no
/// other key shares, so the order is the one of the comparisons the keys stand for, on any thread count.
extension FeatureOrder {
    /// The drop order of `ranks.count` features (indices, the first kept longest), from each feature's priority
    /// (higher kept longer; the attribute, the size, or −∞), pseudo-random rank, tier (higher kept longer; empty:
    /// all 0) and, for `spacing`, Morton code of its anchor. `importance` gets each feature's place when ordered
    /// by priority, then rank, then index.
    static func dropOrder(
        priority: [Double], ranks: [UInt64], tiers: [Int16], morton: [UInt64], mode: ThinningMode, threads: Int
    ) -> (order: [Int], importance: [Int32]) {
        let n = ranks.count
        var byImportance = (0..<n).map { i in
            PackedKey(first: descendingKey(priority[i]), second: ranks[i], index: i)
        }
        ParallelSort.sort(&byImportance, threads: threads)
        var importance = [Int32](repeating: 0, count: n)
        for (k, key) in byImportance.enumerated() { importance[key.index] = Int32(k) }
        let tier = { (i: Int) -> UInt64 in tiers.isEmpty ? 0 : tierKey(tiers[i]) }
        switch mode {
        case .spacing:
            let levels = Self.levels(morton, importance: importance, tiers: tiers, threads: threads)
            // Within a level by a second hash, not by importance: a cell's winner has the best importance of more
            // features where they are dense, so ordering by it would favour dense areas again.
            var keys = (0..<n).map { i in
                PackedKey(
                    first: tier(i) << 8 | UInt64(levels[i]), second: FeatureRank.mix(ranks[i]),
                    index: Int(importance[i]))
            }
            ParallelSort.sort(&keys, threads: threads)
            return (keys.map { byImportance[$0.index].index }, importance)
        case .random:
            var keys = (0..<n).map { i in PackedKey(first: tier(i), second: ranks[i], index: i) }
            ParallelSort.sort(&keys, threads: threads)
            return (keys.map(\.index), importance)
        case .smallest, .priority:
            guard tiers.contains(where: { $0 != 0 }) else { return (byImportance.map(\.index), importance) }
            // By importance within each tier.
            var keys = (0..<n).map { k in PackedKey(first: tier(byImportance[k].index), second: 0, index: k) }
            ParallelSort.sort(&keys, threads: threads)
            return (keys.map { byImportance[$0.index].index }, importance)
        }
    }

    /// The level of each feature (see the type): the coarsest grid level at which it is its cell's most important
    /// (lowest `importance`, the first in Morton order among equals) among the features of its tier (`tiers`;
    /// empty: one tier).
    static func levels(_ morton: [UInt64], importance: [Int32], tiers: [Int16] = [], threads: Int = 1) -> [UInt8] {
        let n = morton.count
        // Sorted by tier, then cell: a cell's run holds the features of one tier only.
        var sorted = (0..<n).map { i in
            PackedKey(first: tiers.isEmpty ? 0 : tierKey(tiers[i]), second: morton[i], index: i)
        }
        ParallelSort.sort(&sorted, threads: threads)
        // The passes read these in sorted order, one after the other in memory.
        let cells = sorted.map(\.second)
        let groups = sorted.map(\.first)
        let ranked = sorted.map { importance[$0.index] }
        let never = UInt8(FeatureAnchor.bits + 1)
        var won = [UInt8](repeating: never, count: n)
        for k in 0...FeatureAnchor.bits {
            let shift = UInt64(2 * (FeatureAnchor.bits - k))
            var start = 0
            while start < n {
                let cell = cells[start] >> shift
                var best = start
                var end = start + 1
                while end < n, cells[end] >> shift == cell, groups[end] == groups[start] {
                    if ranked[end] < ranked[best] { best = end }
                    end += 1
                }
                if won[best] == never { won[best] = UInt8(k) }
                start = end
            }
        }
        var level = [UInt8](repeating: never, count: n)
        for (p, key) in sorted.enumerated() { level[key.index] = won[p] }
        return level
    }

    /// A key that sorts higher priorities first (−0 as +0; priorities are never NaN).
    static func descendingKey(_ v: Double) -> UInt64 {
        let bits = (v == 0 ? 0.0 : v).bitPattern
        return ~(bits >> 63 == 1 ? ~bits : bits | 1 << 63)
    }

    /// A key that sorts higher tiers first.
    static func tierKey(_ t: Int16) -> UInt64 {
        UInt64(UInt16.max - (UInt16(bitPattern: t) ^ 0x8000))
    }
}

/// Two 64-bit fields and an index, compared in that order.
struct PackedKey: Comparable {
    var first: UInt64
    var second: UInt64
    var index: Int

    static func < (a: Self, b: Self) -> Bool {
        if a.first != b.first { return a.first < b.first }
        if a.second != b.second { return a.second < b.second }
        return a.index < b.index
    }
}
