import KartpackCore

/// What the first round of a thinned zoom found for one tile (`TileIndex.roundZero`): the tile was encoded at the
/// cut-off inherited from the zoom above, to learn whether it is over a limit and, if so, at which cut-off it fits.
/// The round's tiles are discarded (the zoom is encoded again at its own cut-off), so the next night needs only
/// these answers: a tile whose first-round signature is unchanged is not encoded in that round (`TileReuse`).
package struct RoundZeroEntry: Sendable, Equatable {
    package var tile: TileCoordinate
    /// The tile's `TileSignature` at the first round's selection; for a tile over a limit, combined with
    /// `RoundZero.orderDigest` (its fitting cut-off depends on the drop order of its kept features).
    package var signature: TileDigest
    /// `RoundZero.over`, `overBytes`, `unreplayable`.
    package var flags: UInt8
    /// The fitting cut-off of a tile over a limit, as an index into its kept features' distinct drop positions
    /// (`RoundZero.keptPositions`; -1: the cut-off 0).
    package var fitRank: Int32

    var isOver: Bool { flags & RoundZero.over != 0 }
}

/// The first round of a thinned zoom, replayed from the tile index.
///
/// A tile's fitting cut-off (`ThinPass.fittingCutoff`) depends on its pieces at the round's selection (what its
/// `TileSignature` hashes) and on the order of its kept features in the drop order, not on their absolute
/// positions: the search only ever keeps the first m distinct positions of the tile's own kept features. So the
/// index keeps the cut-off as m (`fitRank`), and the signature of a tile over a limit also hashes each kept
/// feature's dense rank among the tile's positions (`orderDigest`); a feature added or removed elsewhere, which
/// shifts every position after it, does not make the tile's first round run again.
enum RoundZero {
    static let over: UInt8 = 1
    static let overBytes: UInt8 = 2
    /// The fitting cut-off was not one of the tile's kept positions (never expected): the tile is always encoded.
    static let unreplayable: UInt8 = 4

    /// The distinct drop positions of the features `selection` keeps among `pieces` (one tile), ascending.
    static func keptPositions(
        _ pieces: ArraySlice<TilePiece>, selection: ZoomSelection, order: FeatureOrder
    ) -> [Int32] {
        var positions: [Int32] = []
        positions.reserveCapacity(pieces.count)
        for p in pieces where selection.keeps(layer: Int(p.layer), feature: Int(p.feature)) {
            positions.append(order.position[Int(p.layer)][Int(p.feature)])
        }
        positions.sort()
        var distinct: [Int32] = []
        for p in positions where distinct.last != p { distinct.append(p) }
        return distinct
    }

    /// A digest of the drop order of one tile's kept features among themselves: per piece, its layer, its
    /// feature's stable key (`RecordTable.rank`), the dense rank of its position among `keptPositions` (-1 when
    /// not kept) and whether the zoom is its highest in the order (where no cut-off drops it), sorted, so the merge
    /// order of the pieces does not matter.
    static func orderDigest(
        _ pieces: ArraySlice<TilePiece>, records: [RecordTable], selection: ZoomSelection, order: FeatureOrder
    ) -> TileDigest {
        let distinct = keptPositions(pieces, selection: selection, order: order)
        var keyed: [(layer: Int32, key: UInt64, rank: Int)] = []
        keyed.reserveCapacity(pieces.count)
        for p in pieces {
            let (l, f) = (Int(p.layer), Int(p.feature))
            var rank = -1
            if selection.keeps(layer: l, feature: f) {
                rank = distinct.partitioningIndex { $0 >= order.position[l][f] } << 1
            }
            if Int(order.topZoom[l][f]) <= selection.zoom { rank |= 1 }
            keyed.append((p.layer, records[l].rank(f), rank))
        }
        keyed.sort { ($0.layer, $0.key, $0.rank) < ($1.layer, $1.key, $1.rank) }
        var h = TileHasher()
        h.add(keyed.count)
        for k in keyed {
            h.add(Int(k.layer))
            h.add(k.key)
            h.add(k.rank)
        }
        return h.finish()
    }

    /// The signature a tile over a limit is kept under: its `TileSignature` and its `orderDigest`.
    static func combined(_ signature: TileDigest, _ order: TileDigest) -> TileDigest {
        var h = TileHasher()
        for w in [signature.high, signature.low, order.high, order.low] { h.add(w) }
        return h.finish()
    }

    /// `fit` (a fitting cut-off) as an index into `distinct` (-1 for 0 when the tile keeps nothing); nil when it is
    /// neither.
    static func rank(of fit: Int32, in distinct: [Int32]) -> Int32? {
        let i = distinct.partitioningIndex { $0 >= fit }
        if i < distinct.count, distinct[i] == fit { return Int32(i) }
        return fit == 0 && distinct.isEmpty ? -1 : nil
    }

    /// The fitting cut-off `rank` (`rank(of:in:)`) stands for among `distinct`; nil when out of range.
    static func fit(rank: Int32, in distinct: [Int32]) -> Int32? {
        if rank < 0 { return distinct.isEmpty ? 0 : nil }
        return Int(rank) < distinct.count ? distinct[Int(rank)] : nil
    }
}
