extension EncodePhase {
    /// The tiles of a batch the encode passes make, and those copied from the previous package (`TileReuse`, with
    /// `--full` or without an index: none); without a `TileReuse` (convert, shards, regions) every tile is made.
    /// (A zoom encoded whole, every tile made and only signed, is signed by `TileReuse.signWhole`.)
    func reusing(
        _ read: ZoomStream.Batch, selection: ZoomSelection, records: [RecordTable], highest: [[Int8]],
        thinnable: Bool
    ) throws -> (ZoomStream.Batch, ReusedTiles) {
        guard let reuse = settings.reuse else { return (read, ReusedTiles()) }
        let (maxBytes, maxFeatures) = (thin.maxTileBytes, thin.maxTileFeatures)
        return try reuse.split(
            read, selection: selection, records: records, highest: highest, identities: settings.identities,
            unchanged: settings.unchanged, thinnable: thinnable, coalescing: settings.coalesce.contains(true),
            workers: ParallelTiles(threads: settings.threads), limits: (maxBytes, maxFeatures))
    }

    /// Adds the answers of a batch's replayed first-round tiles (`TileReuse.splitFirstRound`) to `tally`, as
    /// `encodeRound` adds those of the tiles it encodes: an over-limit tile makes the drop order (`makeOrder`) and,
    /// when `fit`, gives its fitting cut-off.
    func tallyReplayed(
        _ answers: [ReplayedTile], fit: Bool, selection: inout ZoomSelection, into tally: inout ZoomTally,
        makeOrder: () throws -> FeatureOrder
    ) throws {
        for a in answers where a.over {
            tally.over += 1
            tally.overBytes = tally.overBytes || a.overBytes
            guard fit, let cutoff = a.fit else { continue }
            if selection.order == nil { selection.order = try makeOrder() }
            tally.fit = min(tally.fit ?? cutoff, cutoff)
        }
    }
}
