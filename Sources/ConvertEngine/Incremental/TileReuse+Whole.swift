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

    /// Signs every tile of `read`, a batch of a zoom encoded whole, at `selection` for tonight's index, as `split`
    /// signs (`madeSignatures`; a tile's signature taken from last night's where `unsignedRule` gives it) but with
    /// every tile to encode, and returns the batch's piece digests for the zoom's later rounds (`signHeld`):
    /// made for every tile, also one whose signature was taken, since a later round signs it at another cut-off.
    func signWhole(
        _ read: ZoomStream.Batch, selection: ZoomSelection, records: [RecordTable], highest: [[Int8]],
        identities: [[Int32]], unchanged: [[Bool]], workers: ParallelTiles
    ) throws -> HeldSignatures {
        let (pieces, runs) = (read.pieces, read.runs)
        let keepsEvery = selection.keepsEvery
        let made = try Self.madeSignatures(
            read, selection: selection, records: records, highest: highest, identities: identities,
            workers: workers, kept: [:], handing: .every, check: checkUnsigned,
            unsigned: unsignedRule(keepsEvery: keepsEvery, identities: identities, unchanged: unchanged))
        pending = [:]
        pendingPieces = [:]
        var held = HeldSignatures()
        held.heldBytes = read.skipped.count * 8
        for run in runs {
            for p in pieces[run] { held.heldBytes += PieceSpool.bytes(of: p) }
        }
        if checkUnsigned {
            var kept = read
            kept.runs = runs.filter { !$0.isEmpty }
            held.read = kept
        }
        for (i, m) in made.enumerated() {
            guard let m, let parts = m.parts else { continue }
            let tile = pieces[runs[i].lowerBound].tile
            if m.unsigned { unsignedTiles.insert(tile) }
            pending[tile] = m.signature
            pendingPieces[tile] = keepsEvery ? runs[i].count : -1
            held.tiles.append(tile)
            held.parts.append(parts)
        }
        return held
    }

    /// Signs a whole zoom's held batch (`signWhole`) again at this round's `selection`, for tonight's index, from
    /// its kept piece digests.
    func signHeld(
        _ held: HeldSignatures, selection: ZoomSelection, records: [RecordTable], highest: [[Int8]],
        identities: [[Int32]], workers: ParallelTiles
    ) throws {
        let made = try Self.signatures(
            held, selection: selection, records: records, highest: highest, identities: identities, workers: workers)
        pending = made.mapValues(\.signature)
        pendingPieces = made.mapValues(\.keptPieces)
    }

    /// The signatures of a whole zoom's held batch at `selection`, with their `keptPieces`: recorded by `signHeld`,
    /// and taken as they are by a whole zoom's last round run beside the next zoom (it reads and changes no state).
    static func signatures(
        _ held: HeldSignatures, selection: ZoomSelection, records: [RecordTable], highest: [[Int8]],
        identities: [[Int32]], workers: ParallelTiles
    ) throws -> [TileCoordinate: (signature: TileDigest, keptPieces: Int)] {
        let made = try held.signatures(
            selection: selection, records: records, highest: highest, identities: identities, workers: workers)
        var out: [TileCoordinate: (signature: TileDigest, keptPieces: Int)] = [:]
        for (i, tile) in held.tiles.enumerated() {
            out[tile] = (made[i], selection.keepsEvery ? held.parts[i].count : -1)
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
