import KartpackCore

/// The tiles of a batch copied from the previous package, with their index entries, and where the batch's other
/// tiles were (to put the encoded ones between them, in tile order).
struct ReusedTiles {
    var pieces: [TilePiece]
    var tiles: [(position: Int, tile: EncodedTile, entry: TileIndexEntry)] = []
    /// The copied tiles' pieces (their features are counted as an encoded tile's are).
    var runs: [Range<Int>] = []
    /// The position in the batch of each tile sent to the encode passes.
    var positions: [TileCoordinate: Int] = [:]
    /// Copied tiles over a limit (only where nothing more can be dropped), and whether one is over the byte limit.
    var over = 0
    var overBytes = false

    init(pieces: [TilePiece] = []) { self.pieces = pieces }

    mutating func add(_ tile: EncodedTile, entry: TileIndexEntry, position: Int, run: Range<Int>) {
        runs.append(run)
        tiles.append((position, tile, entry))
    }

    /// The batch's tiles with features in tile order: the encode passes' (`made`) and the copied ones, whose share
    /// of the zoom's statistics `tally` takes from their entries (features present and left out are counted from
    /// their pieces at `selection`, as for an encoded tile).
    func merged(with made: [EncodedTile], tally: inout ZoomTally, selection: ZoomSelection) -> [EncodedTile] {
        guard !tiles.isEmpty else { return made }
        tally.count(EncodeBatch(pieces: pieces, runs: runs), selection: selection)
        tally.over += over
        tally.overBytes = tally.overBytes || overBytes
        var out: [(Int, EncodedTile)] = made.map { (positions[$0.tile] ?? 0, $0) }
        for (position, tile, entry) in tiles where tally.addCopied(tile, entry: entry) {
            out.append((position, tile))
        }
        out.sort { $0.0 < $1.0 }
        return out.map(\.1)
    }
}

extension ZoomTally {
    /// Adds a tile copied from the previous package: its share of the zoom's statistics from its index entry, and
    /// the tile itself when it has features (returned: whether it is written).
    mutating func addCopied(_ tile: EncodedTile, entry: TileIndexEntry) -> Bool {
        stats.sharedBorderFallbacks += entry.sharedBorderFallbacks
        if !entry.small.isEmpty {
            add(Dictionary(entry.small.map { ($0.layer, $0.counts) }, uniquingKeysWith: { a, _ in a }))
        }
        guard tile.features > 0 else { return false }
        add(tile)
        return true
    }
}
