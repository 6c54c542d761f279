extension EncodePhase {
    /// The tiles of a batch this run encodes: all of them, except at the max zoom of a shard, where only the
    /// shard's range (`EncodeSettings.shardRange`).
    ///
    /// Only the max zoom may be cut down: nothing there is thinned (no cut-off, no drop counted, `ZoomSelection`
    /// keeps every feature at its highest zoom), so no decision of the build depends on another tile of it, and the
    /// features' highest zooms are still noted from the whole batch. Below it a zoom's cut-off can be lowered by any
    /// of its tiles and its dropped counts reach the metadata, so every shard encodes those zooms whole. The max
    /// zoom holds about three quarters of the tiles, so a shard skips most of the encode phase's work.
    func shardTiles(_ read: ZoomStream.Batch, zoom z: Int) -> ZoomStream.Batch {
        guard z == settings.maxZoom, let range = settings.shardRange else { return read }
        var kept = read
        // Runs are one tile each, in key order; the range is an interval, so the kept runs are adjacent.
        kept.runs = read.runs.filter { !$0.isEmpty && range.contains(read.pieces[$0.lowerBound].key) }
        return kept
    }
}
