import KartpackCore

/// The prepared tiles (`PreparePass`) of a zoom kept across its thinning rounds when unchanged tiles are copied
/// (`TileReuse`), up to `limit` bytes: what `HeldBatches` does for a build that encodes every tile, by tile rather
/// than by batch, since each round copies another set of tiles (a cut-off changes what a tile keeps).
///
/// A tile's preparation (its pieces in stable order, shared borders, small-feature candidates) depends on its pieces
/// and the zoom only, never on the round's cut-off or on the other tiles of its batch, so a tile prepared in one
/// round is the one every later round would prepare. The zoom's merge still runs every round (the signatures need
/// the tile's pieces as merged); only the preparation is saved.
struct PreparedTiles {
    /// One prepared tile: its pieces, its small-feature candidates (indices from its first piece) and its
    /// shared-border fallbacks.
    struct Tile {
        var pieces: [TilePiece]
        var small: [SmallFeatureReduction.Candidate]
        var fallbacks: Int
    }

    var limit: Int
    private var tiles: [TileCoordinate: Tile] = [:]
    private var bytes = 0
    /// A tile did not fit: no more are kept (those kept stay).
    private var full = false

    init(limit: Int) { self.limit = limit }

    /// Splits `read` into the tiles to prepare (a batch, and their positions among `read`'s tiles) and those kept
    /// from an earlier round, with their positions.
    func split(_ read: ZoomStream.Batch) -> (ZoomStream.Batch, positions: [Int], kept: [(position: Int, tile: Tile)]) {
        guard !tiles.isEmpty else { return (read, Array(read.runs.indices), []) }
        var rest = read
        rest.runs = []
        var positions: [Int] = []
        var kept: [(position: Int, tile: Tile)] = []
        for (i, run) in read.runs.enumerated() {
            if !run.isEmpty, let t = tiles[read.pieces[run.lowerBound].tile] {
                kept.append((i, t))
            } else {
                rest.runs.append(run)
                positions.append(i)
            }
        }
        return (rest, positions, kept)
    }

    /// Keeps the tiles of `batch` (prepared this round) while they fit.
    mutating func keep(_ batch: EncodeBatch) {
        for (i, run) in batch.runs.enumerated() where !run.isEmpty && !full {
            let tile = batch.pieces[run.lowerBound].tile
            guard tiles[tile] == nil else { continue }
            let small = i < batch.small.count ? batch.small[i].map { c in rebased(c, by: -run.lowerBound) } : []
            var size = small.count * MemoryLayout<SmallFeatureReduction.Candidate>.stride + 64
            for p in batch.pieces[run] { size += PieceSpool.bytes(of: p) }
            guard bytes + size <= limit else {
                full = true
                return
            }
            let fallbacks = i < batch.tileFallbacks.count ? batch.tileFallbacks[i] : 0
            tiles[tile] = Tile(pieces: Array(batch.pieces[run]), small: small, fallbacks: fallbacks)
            bytes += size
        }
    }

    /// The batch of `prepared` (the tiles `split` left to prepare, prepared) and `kept`, in the order of the tiles
    /// they came from; `positions` are the prepared tiles' positions in that order.
    /// `sharedBorders`, `smallFeatures`: whether those passes ran (their per-tile lists are empty when not).
    static func assemble(
        _ prepared: EncodeBatch, positions: [Int], kept: [(position: Int, tile: Tile)], sharedBorders: Bool,
        smallFeatures: Bool
    ) -> EncodeBatch {
        guard !kept.isEmpty else { return prepared }
        var parts: [(position: Int, tile: Tile)] = kept
        for (i, run) in prepared.runs.enumerated() {
            let small = i < prepared.small.count ? prepared.small[i].map { c in rebased(c, by: -run.lowerBound) } : []
            let fallbacks = i < prepared.tileFallbacks.count ? prepared.tileFallbacks[i] : 0
            parts.append((positions[i], Tile(pieces: Array(prepared.pieces[run]), small: small, fallbacks: fallbacks)))
        }
        parts.sort { $0.position < $1.position }
        var batch = EncodeBatch(pieces: [], runs: [])
        batch.absent = prepared.absent
        for (_, t) in parts {
            let start = batch.pieces.count
            batch.pieces += t.pieces
            batch.runs.append(start..<batch.pieces.count)
            if smallFeatures { batch.small.append(t.small.map { c in rebased(c, by: start) }) }
            if sharedBorders { batch.tileFallbacks.append(t.fallbacks) }
            batch.sharedBorderFallbacks += t.fallbacks
        }
        return batch
    }

    private static func rebased(
        _ c: SmallFeatureReduction.Candidate, by shift: Int
    ) -> SmallFeatureReduction.Candidate {
        var c = c
        c.index += shift
        return c
    }

    private func rebased(_ c: SmallFeatureReduction.Candidate, by shift: Int) -> SmallFeatureReduction.Candidate {
        Self.rebased(c, by: shift)
    }
}
