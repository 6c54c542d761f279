import KartpackCore

/// Last night's feature digests (`PieceReuse.featureDigest`, in the package's order: output layer by output layer,
/// each in input order) as tonight's features take them (`claim`), with their order by digest, which of them were
/// taken, and per output layer where the next is expected. One value mutated through one access per feature (its
/// arrays were four properties of `PieceReuse`, each access a dynamic exclusivity check).
struct FeatureClaims {
    private var digests: [TileDigest] = []
    private var byDigest: [UInt32] = []
    private var claimed: [Bool] = []
    private var cursors: [Int] = []

    init() {}

    /// The claims of `digests` (a store's `features`), ordered by digest by `byDigest` (its indices, sorted by
    /// digest, then index); none taken yet.
    init(digests: [TileDigest], byDigest: [UInt32]) {
        self.digests = digests
        self.byDigest = byDigest
        claimed = [Bool](repeating: false, count: digests.count)
    }

    /// No digest to claim (no store read, or after the feature phase).
    var isEmpty: Bool { digests.isEmpty }

    /// The indices of the digests no feature took.
    var unclaimed: [Int] { claimed.indices.filter { !claimed[$0] } }

    /// Whether a digest `d` of last night's is not yet taken, taking it (see `PieceReuse.claim`): the one after the
    /// last found in `layer` when it is `d`, else the first untaken `d` by digest, which the layer's next expected
    /// digest then follows.
    mutating func claim(_ d: TileDigest, layer: Int) -> Bool {
        if layer < cursors.count {
            let next = cursors[layer]
            if next < digests.count, !claimed[next], digests[next] == d {
                claimed[next] = true
                cursors[layer] = next + 1
                return true
            }
        }
        var lo = byDigest.partitioningIndex {
            (digests[Int($0)].high, digests[Int($0)].low) >= (d.high, d.low)
        }
        while lo < byDigest.count, digests[Int(byDigest[lo])] == d {
            let i = Int(byDigest[lo])
            if !claimed[i] {
                claimed[i] = true
                if layer >= cursors.count { cursors += [Int](repeating: Int.max, count: layer + 1 - cursors.count) }
                cursors[layer] = i + 1
                return true
            }
            lo += 1
        }
        return false
    }
}
