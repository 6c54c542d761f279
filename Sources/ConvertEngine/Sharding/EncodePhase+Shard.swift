import KartpackCore

extension EncodePhase {
    /// The shard's part of zoom `z` (`ShardZooms`); a whole build encodes every zoom whole.
    func shardRole(zoom z: Int) -> ShardZooms.Role { settings.shardZooms?.role(zoom: z) ?? .whole }

    /// True when the run encodes some tile of a zoom from `lowest` to below `z`.
    func shardEncodes(below z: Int, from lowest: Int) -> Bool {
        (lowest..<max(lowest, z)).contains { shardRole(zoom: $0) != .none }
    }

    /// The tiles of a batch this run encodes: all of them, except at a zoom a shard holds only part of
    /// (`ShardZooms.Role.range`), where only the shard's tiles.
    ///
    /// Only zooms where nothing is thinned may be cut down (the split zoom and above: `ShardZooms`): there no
    /// decision of the build depends on another tile of the zoom, and the features' highest zooms are still noted
    /// from the whole batch.
    func shardTiles(_ read: ZoomStream.Batch, zoom z: Int) -> ZoomStream.Batch {
        guard let shard = settings.shardZooms, shard.role(zoom: z) == .range else { return read }
        let tiles = shard.tiles
        var kept = read
        // Runs are one tile each, in key order; a shard holds one range of a zoom, so the kept runs are adjacent.
        kept.runs = read.runs.filter { !$0.isEmpty && tiles.contains(read.pieces[$0.lowerBound].key) }
        return kept
    }

    /// A zoom the shard holds no tile of: only each feature's highest zoom is noted (the zooms below need it), from
    /// the zoom's pieces as merged; nothing is prepared or encoded.
    func noteHighestOnly(zoom z: Int, ordered: TileRuns, highest: inout [[Int8]]) throws {
        try ordered.forEachBatch(zoom: z, maxPieces: settings.batchPieces, skipping: nil) { read in
            if CancellationFlag.process.isCancelled { throw PipelineError.interrupted(signal: 0) }
            PreparePass.noteHighest(read, zoom: z, in: &highest)
        }
    }

    /// Refuses a shard with a tile over a limit at a split zoom below the max zoom: that zoom's cut-off depends on
    /// every tile of it, and the first shard's zooms inherit it, but no shard sees them all (the plan must split at
    /// a higher zoom).
    func checkNotThinned(zoom z: Int, overLimit: Int) throws {
        guard overLimit > 0, isSplit(zoom: z), let shard = settings.shardZooms else { return }
        throw ShardError.thinnedAtSplitZoom(
            zoom: z, splitZoom: shard.splitZoom, why: "a tile at zoom \(z) is over the tile limits")
    }

    /// Refuses a shard of a build with `max-points` at a split zoom below the max zoom: what it leaves out there is
    /// counted in the package metadata, which the first shard writes without seeing those zooms.
    func checkNoMaxPoints(zoom z: Int) throws {
        guard thin.hasMaxPoints, isSplit(zoom: z), let shard = settings.shardZooms else { return }
        throw ShardError.thinnedAtSplitZoom(
            zoom: z, splitZoom: shard.splitZoom, why: "max-points limits the points of zoom \(z)")
    }

    /// A zoom below the max zoom that the plan splits between shards (nothing may be thinned there).
    private func isSplit(zoom z: Int) -> Bool {
        guard z != settings.maxZoom, let shard = settings.shardZooms, !shard.coversAll else { return false }
        return z >= shard.splitZoom
    }
}
