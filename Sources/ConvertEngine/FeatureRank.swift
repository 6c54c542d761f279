/// A deterministic pseudo-random rank per feature: the tie-break of the thinning order (`FeatureOrder`) and the
/// whole order with `--thinning random`. Label points carry their polygon's rank. A conversion takes each feature's
/// rank from its stable key (`FeatureKey.rank`), never from its place in the input.
package enum FeatureRank {
    /// SplitMix64 of (layer, feature index): distinct ranks for records made up in tests.
    static func rank(layer: Int, feature: Int) -> UInt64 {
        var z = (UInt64(truncatingIfNeeded: layer) << 40) ^ UInt64(truncatingIfNeeded: feature) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A second, independent hash of a rank (the SplitMix64 finalizer once more, with another increment).
    static func mix(_ rank: UInt64) -> UInt64 {
        var z = rank &+ 0xD1B5_4A32_D192_ED03
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
