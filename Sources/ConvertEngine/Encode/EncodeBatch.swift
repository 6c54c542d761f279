/// Tiles of a zoom on their way through the encode passes: pieces merged from the sort runs (`TileRuns`), polygons
/// simplified with shared borders and small-feature candidates found (`PreparePass`), the neighbours coalescing
/// merges into (`ThinPass`), then encoded (`TileEncodePass`).
package struct EncodeBatch: Sendable {
    var pieces: [TilePiece]
    /// Each tile's pieces in `pieces`, in tile order.
    package var runs: [Range<Int>]
    /// Per tile (in `runs` order), the pieces small-feature reduction may replace (empty when it is off).
    var small: [[SmallFeatureReduction.Candidate]] = []
    var sharedBorderFallbacks = 0
    /// Per tile (in `runs` order), its pieces that kept their unsimplified rings (empty without shared borders).
    var tileFallbacks: [Int] = []
    /// Per tile (in `runs` order), the neighbours coalescing merges into (empty until something may be dropped).
    var neighbours: [Coalescing.TileNeighbours] = []
    /// The features of pieces left out before simplification (the zoom cannot keep them), for the counts.
    var absent: [(layer: Int32, feature: Int32)] = []

    /// About the bytes the batch holds: its pieces with their geometry (as the spool counts them against the
    /// budget), small-feature candidates, neighbours.
    var heldBytes: Int {
        var n = absent.count * 8
        for p in pieces { n += PieceSpool.bytes(of: p) }
        for c in small { n += c.count * MemoryLayout<SmallFeatureReduction.Candidate>.stride + 32 }
        for t in neighbours {
            for a in t.adjacent { n += a.count * 8 + 32 }
        }
        return n
    }
}

/// The prepared batches of a zoom held for its next thinning round, which then encodes them at once and only
/// merges and prepares (shared borders, small features) the batches after them again: the first batch always
/// (a zoom that comes as one, as every zoom when nothing was spilled, is prepared once), then more while they
/// total at most `limit` bytes. They are the same batches the merge gives each round, so the bytes do not depend
/// on how many are held. A zoom encoded whole with reuse (`TileReuse.encodesWhole`) also holds each batch's piece
/// digests (`signed`), which the next round combines at its cut-off for tonight's index.
package struct HeldBatches {
    package var limit: Int
    var batches: [EncodeBatch] = []
    /// Each held batch's tiles' piece digests, to sign them again (only with reuse; else empty).
    var signed: [HeldSignatures] = []
    /// Bytes of the prepared batches held, and of their digests (`signed`): together at most `limit`.
    private(set) var bytes = 0
    private var readBytes = 0
    /// A batch was turned away: those after it are not held either.
    private var full = false
    /// The stream ended with every batch held: the next round merges nothing.
    private(set) var isComplete = false

    package init(limit: Int) { self.limit = limit }

    /// Holds `batch` (the next of the zoom's stream), with `signatures` (its piece digests) when given, when it
    /// still fits.
    mutating func offer(_ batch: EncodeBatch, signatures: HeldSignatures? = nil) {
        guard !full else { return }
        let size = batch.heldBytes
        let readSize = signatures?.heldBytes ?? 0
        guard batches.isEmpty || bytes + readBytes + size + readSize <= limit else {
            full = true
            return
        }
        batches.append(batch)
        if let signatures { signed.append(signatures) }
        bytes += size
        readBytes += readSize
    }

    /// The zoom's stream was read to its end.
    mutating func streamEnded() { isComplete = !full }
}
