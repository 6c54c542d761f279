import KartpackCore

/// What a whole zoom's last round, run beside the next zoom (`DeferredRound`), made of one batch for tonight's
/// index: its tiles (in its runs' order), their signatures at the round's selection with their `keptPieces`, and
/// the batch's per-tile shared-border fallbacks and small-feature counts (empty when off).
struct LastRoundNote {
    var tiles: [EncodedTile]
    var signatures: [TileCoordinate: (signature: TileDigest, keptPieces: Int)]
    var fallbacks: [Int]
    var small: [[Int32: SmallFeatureReduction.Counts]]
}

extension TileReuse {
    /// Whether zoom `z` is encoded whole, as a build without reuse encodes it (issue 37): every tile of every round
    /// goes to the encode passes and is only signed for tonight's index, so that the zoom's prepared batches are
    /// held across its thinning rounds (`HeldBatches`, not merged and prepared again each round) and its last round
    /// can run beside the next zoom's cut-off search (`DeferredRound`). Copying saves nothing at a zoom where most
    /// tiles changed, and that zoom's rounds then cost more than a full build's.
    ///
    /// Whole: every zoom of a full build (`--full`, no usable index), and a zoom last night thinned (it takes more
    /// than one round, `roundZeroZooms`) when the zoom above encoded whole, or re-encoded at least half its tiles.
    /// Edits dirty a larger share of the tiles the lower the zoom, each tile holding more features. Decided from
    /// signatures only (never from timing, threads or memory), and encoding a tile gives the bytes and the index
    /// entry copying it would: the package and the index do not depend on it.
    func encodesWhole(zoom z: Int) -> Bool {
        let whole: Bool
        if !isActive {
            whole = true
        } else if noWholeZooms {
            whole = false
        } else if wholeZooms.contains(z + 1) {
            whole = true
        } else if roundZeroZooms.contains(z), let above = entries[z + 1], !above.isEmpty {
            whole = above.filter { !$0.copied }.count * 2 >= above.count
        } else {
            whole = false
        }
        if whole { wholeZooms.insert(z) }
        return whole
    }

    /// The signatures of every tile of `read` at `selection`, with their `keptPieces`, as `split` makes them (all
    /// signed): for a whole zoom's last round run beside the next zoom, so it reads and changes no state.
    static func signatures(
        _ read: ZoomStream.Batch, selection: ZoomSelection, records: [RecordTable], highest: [[Int8]],
        identities: [[Int32]], workers: ParallelTiles
    ) throws -> [TileCoordinate: (signature: TileDigest, keptPieces: Int)] {
        let (pieces, runs) = (read.pieces, read.runs)
        let signatures = try workers.map(runs.count) { i throws(PipelineError) -> TileDigest? in
            guard !runs[i].isEmpty else { return nil }
            return try TileSignature.of(
                runs[i], pieces: pieces, records: records, selection: selection, highest: highest,
                identities: identities)
        }
        var out: [TileCoordinate: (signature: TileDigest, keptPieces: Int)] = [:]
        for (i, run) in runs.enumerated() {
            guard let s = signatures[i] else { continue }
            out[pieces[run.lowerBound].tile] = (s, selection.keepsEvery ? run.count : -1)
        }
        return out
    }

    /// Records the tiles of zoom `z`'s last round, run beside the next zoom (`LastRoundNote`, one per batch):
    /// they replace what the zoom's earlier rounds recorded, as `beginRound` and `noteEncoded` would have.
    func noteLastRound(zoom z: Int, _ notes: [LastRoundNote]) {
        var made: [(entry: TileIndexEntry, copied: Bool)] = []
        for n in notes {
            for (i, t) in n.tiles.enumerated() {
                guard let s = n.signatures[t.tile] else { continue }
                let entry = Self.entry(
                    t, tile: i, signature: s.signature, keptPieces: s.keptPieces, fallbacks: n.fallbacks,
                    small: n.small)
                made.append((entry, false))
            }
        }
        entries[z] = made
    }
}
