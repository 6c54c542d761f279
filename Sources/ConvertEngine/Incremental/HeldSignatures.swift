import KartpackCore

/// A batch of a zoom encoded whole (`TileReuse.encodesWhole`) as its later rounds sign it, held beside the batch
/// across the zoom's thinning rounds (`HeldBatches`): per tile, its address and its pieces' digests
/// (`TileSignature.parts`), made once in the round that merged the batch. A later round, and the last round run
/// beside the next zoom (`DeferredRound`), only combines them at its own cut-off (`TileSignature.combined`): a
/// whole zoom's records and commands are hashed once per night, not once per round (issue 37: a 100-edit night
/// at 1M encodes zooms 6–7 whole; a full build every zoom).
struct HeldSignatures {
    /// The batch's tiles with pieces, in its runs' order, and each one's piece digests (one per piece).
    var tiles: [TileCoordinate] = []
    var parts: [[SignedPiece]] = []
    /// The batch as merged with its empty runs left out (a run per tile of `tiles`), kept only with
    /// `KARTPACK_CHECK_UNSIGNED`: each combined signature is then also made from scratch and compared.
    var read: ZoomStream.Batch?

    /// What the batch counts against `HeldBatches.limit`: the bytes of the batch as merged (`PieceSpool.bytes(of:)`
    /// of its pieces, 8 a piece passed over), as when the merged batch itself was held, so that a zoom holds the
    /// same batches as then (counting only the digests let more prepared batches be held: the peak rose by 10–20
    /// MiB).
    var heldBytes = 0

    /// The signature of each tile at `selection` (`highest`: as the zoom sees it), in `tiles` order, combined from
    /// the kept digests; with the batch kept (`read`), each also made from scratch, and a difference is an error.
    func signatures(
        selection: ZoomSelection, records: [RecordTable], highest: [[Int8]], identities: [[Int32]],
        workers: ParallelTiles
    ) throws -> [TileDigest] {
        let (tiles, parts, read) = (tiles, parts, read)
        return try workers.map(tiles.count) { i throws(PipelineError) -> TileDigest in
            let signature = TileSignature.combined(tiles[i], parts[i], selection: selection, highest: highest)
            if let read {
                let fresh = try TileSignature.of(
                    read.runs[i], pieces: read.pieces, records: records, selection: selection, highest: highest,
                    identities: identities)
                guard fresh == signature else {
                    throw PipelineError.tileEncoding(
                        tile: tiles[i].description,
                        reason: "its piece digests kept with its held batch do not give its signature "
                            + "(KARTPACK_CHECK_UNSIGNED)")
                }
            }
            return signature
        }
    }
}
