import KartpackCore

/// What the first round of a zoom that may be thinned found for the tiles of a batch it encoded: each over-limit
/// tile's fitting cut-off (by its index in the batch) and the selection it was found at (with the drop order).
struct FirstRoundAnswers {
    var fits: [Int: Int32]
    var selection: ZoomSelection
    var records: [RecordTable]
    var limits: (bytes: Int, features: Int)
}

/// A tile of a batch whose first round was replayed from the index (`TileReuse.splitFirstRound`): whether it is
/// over a limit, over the byte limit, and its fitting cut-off.
struct ReplayedTile {
    var over: Bool
    var overBytes: Bool
    var fit: Int32?
}

extension TileReuse {
    /// Whether the first round of zoom `z` is replayed from the index: last night thinned it (so its first round
    /// was over a limit), and it does not coalesce (a merged feature counts once per zoom, over all its tiles).
    func replaysFirstRound(zoom z: Int, coalescing: Bool) -> Bool {
        isActive && !coalescing && roundZeroZooms.contains(z)
    }

    /// Splits a merged batch of a replayed first round (`replaysFirstRound`) into the tiles to encode (returned as
    /// a batch) and those whose first-round signature is last night's: they are not encoded, their answers come
    /// from the index. `order` is the drop order (made for the replay; `selection` may not have it yet).
    func splitFirstRound(
        _ read: ZoomStream.Batch, selection: ZoomSelection, order: FeatureOrder, records: [RecordTable],
        highest: [[Int8]], identities: [[Int32]], workers: ParallelTiles
    ) throws -> (ZoomStream.Batch, [ReplayedTile]) {
        let (pieces, runs, previous) = (read.pieces, read.runs, previousRoundZero)
        var ordered = selection
        if ordered.order == nil { ordered.order = order }
        let withOrder = ordered
        let made = try sign(
            read, selection: selection, records: records, highest: highest, identities: identities,
            workers: workers, unsigned: nil)
        let signatures = try workers.map(runs.count) { i throws(PipelineError) -> (TileDigest, TileDigest?)? in
            guard let signature = made[i]?.signature else { return nil }
            guard let e = previous[pieces[runs[i].lowerBound].tile], e.isOver else { return (signature, nil) }
            let digest = RoundZero.orderDigest(pieces[runs[i]], records: records, selection: withOrder, order: order)
            return (signature, RoundZero.combined(signature, digest))
        }
        var dirty = read
        dirty.runs = []
        var replayedTiles: [ReplayedTile] = []
        pending = [:]
        pendingPieces = [:]
        for (i, run) in runs.enumerated() {
            guard let found = signatures[i] else {
                dirty.runs.append(run)
                continue
            }
            let (signature, combined) = found
            let tile = pieces[run.lowerBound].tile
            if let e = previous[tile], e.flags & RoundZero.unreplayable == 0,
                let answer = replay(e, signature: signature, combined: combined, run: run, pieces: pieces, withOrder)
            {
                replayedTiles.append(answer)
                roundZero[tile.z, default: []].append(e)
                replayed.insert(tile)
            } else {
                pending[tile] = signature
                dirty.runs.append(run)
            }
        }
        return (dirty, replayedTiles)
    }

    /// Last night's answer `e` for a tile, when its signature tonight is the one `e` was kept under.
    private func replay(
        _ e: RoundZeroEntry, signature: TileDigest, combined: TileDigest?, run: Range<Int>, pieces: [TilePiece],
        _ selection: ZoomSelection
    ) -> ReplayedTile? {
        guard e.isOver else { return e.signature == signature ? ReplayedTile(over: false, overBytes: false) : nil }
        guard let order = selection.order, e.signature == combined else { return nil }
        let kept = RoundZero.keptPositions(pieces[run], selection: selection, order: order)
        guard let fit = RoundZero.fit(rank: e.fitRank, in: kept) else { return nil }
        return ReplayedTile(over: true, overBytes: e.flags & RoundZero.overBytes != 0, fit: fit)
    }

    /// Records the first-round answer for tile `i` of `batch` (encoded as `t`, made from `signature`).
    func noteFirstRound(
        _ batch: EncodeBatch, tile i: Int, _ t: EncodedTile, signature: TileDigest, answers: FirstRoundAnswers
    ) {
        let overBytes = t.bytes.count > answers.limits.bytes
        guard overBytes || t.features > answers.limits.features else {
            roundZero[t.tile.z, default: []].append(
                RoundZeroEntry(tile: t.tile, signature: signature, flags: 0, fitRank: 0))
            return
        }
        var flags = RoundZero.over | (overBytes ? RoundZero.overBytes : 0)
        var rank: Int32 = 0
        var kept = signature
        if let order = answers.selection.order, let fit = answers.fits[i] {
            let pieces = batch.pieces[batch.runs[i]]
            let positions = RoundZero.keptPositions(pieces, selection: answers.selection, order: order)
            if let r = RoundZero.rank(of: fit, in: positions) { rank = r } else { flags |= RoundZero.unreplayable }
            let digest = RoundZero.orderDigest(
                pieces, records: answers.records, selection: answers.selection, order: order)
            kept = RoundZero.combined(signature, digest)
        } else {
            flags |= RoundZero.unreplayable
        }
        roundZero[t.tile.z, default: []].append(
            RoundZeroEntry(tile: t.tile, signature: kept, flags: flags, fitRank: rank))
    }
}
