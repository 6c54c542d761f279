/// The fixed order in which features win: a higher `priority` first (features without one last), then a hash of
/// layer and id, then layer and id. It depends on the feature alone, never on the view or the file order.
struct QueryRank: Comparable {
    var priority: Double?
    var hash: UInt64
    var layer: String
    var id: UInt64

    static func < (a: QueryRank, b: QueryRank) -> Bool {
        switch (a.priority.flatMap { $0.isNaN ? nil : $0 }, b.priority.flatMap { $0.isNaN ? nil : $0 }) {
        case (let pa?, let pb?) where pa != pb: return pa > pb
        case (.some, nil): return true
        case (nil, .some): return false
        default: break
        }
        if a.hash != b.hash { return a.hash < b.hash }
        if a.layer != b.layer { return a.layer.utf8.lexicographicallyPrecedes(b.layer.utf8) }
        return a.id < b.id
    }

    static func == (a: QueryRank, b: QueryRank) -> Bool {
        !(a < b) && !(b < a)
    }

    /// FNV-1a of a layer name.
    static func hash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return h
    }

    /// SplitMix64's finaliser: a well-mixed 64-bit value.
    static func mix(_ v: UInt64) -> UInt64 {
        var z = v &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// A stand-in id for a feature without one: its tile and position in the layer.
    static func pieceKey(_ z: Int, _ x: Int, _ y: Int, _ i: Int) -> UInt64 {
        mix(UInt64(z) << 58 ^ UInt64(truncatingIfNeeded: x) << 29 ^ UInt64(truncatingIfNeeded: y)) ^ UInt64(i)
    }
}
