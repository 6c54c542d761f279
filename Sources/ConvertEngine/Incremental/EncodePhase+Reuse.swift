extension EncodePhase {
    /// The tiles of a batch the encode passes make, and those copied from the previous package (`TileReuse`, with
    /// `--full` or without an index: none); without a `TileReuse` (convert, shards, regions) every tile is made.
    func reusing(
        _ read: ZoomStream.Batch, selection: ZoomSelection, records: [RecordTable], highest: [[Int8]],
        thinnable: Bool
    ) throws -> (ZoomStream.Batch, ReusedTiles) {
        guard let reuse = settings.reuse else { return (read, ReusedTiles()) }
        let (maxBytes, maxFeatures) = (thin.maxTileBytes, thin.maxTileFeatures)
        return try reuse.split(
            read, selection: selection, records: records, highest: highest, identities: settings.identities,
            thinnable: thinnable, coalescing: settings.coalesce.contains(true),
            workers: ParallelTiles(threads: settings.threads), limits: (maxBytes, maxFeatures))
    }
}
