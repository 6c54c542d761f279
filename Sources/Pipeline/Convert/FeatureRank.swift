/// A deterministic pseudo-random rank per feature, used to thin zoom levels uniformly when tiles exceed their
/// limits: the same features are dropped in every tile of a zoom, and a feature kept at zoom z is kept at every
/// higher zoom (the cut-off only grows with zoom).
enum FeatureRank {
    /// SplitMix64 of (layer, feature index).
    static func rank(layer: Int, feature: Int) -> UInt64 {
        var z = (UInt64(truncatingIfNeeded: layer) << 40) ^ UInt64(truncatingIfNeeded: feature) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
