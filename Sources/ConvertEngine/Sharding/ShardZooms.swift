import KartpackCore
import TileArchive

/// Which tiles of each zoom one shard encodes (`EncodeSettings.shardZooms`), from its tiles (`ShardTiles`) and the
/// plan's split zoom.
///
/// A plan gives the zooms below the split zoom (the thinned zooms, whose cut-offs depend on every tile of the zoom)
/// whole to the first shard, and splits the tiles of the split zoom and above, which are not thinned, by area among
/// the others. So a zoom is, for one shard:
/// - `whole`: every tile is the shard's: encoded as the one-machine build does, thinning included;
/// - `range`: some tiles are: only those are prepared and encoded. Nothing may be thinned there (the cut-off of a
///   zoom depends on all its tiles): a tile over a limit below the max zoom refuses the shard
///   (`ShardError.thinnedAtSplitZoom`), so a merge is the one-machine package or nothing;
/// - `none`: no tile is: nothing is encoded, only each feature's highest zoom is noted.
/// The first shard encodes its zooms as if the split zooms kept every feature, which the other shards check.
package struct ShardZooms: Sendable, Hashable {
    /// What a shard does at one zoom.
    package enum Role: Sendable, Hashable {
        case whole, range, none
    }

    package var tiles: ShardTiles
    /// The lowest zoom split into ranges (the zooms below belong to the first shard whole).
    package var splitZoom: Int
    package var order: TileOrder

    package init(tiles: ShardTiles, splitZoom: Int, order: TileOrder) {
        self.tiles = tiles
        self.splitZoom = splitZoom
        self.order = order
    }

    /// The order key of the first tile of zoom `z` (both tile orders are zoom-major, tile 0/0 first).
    package static func firstKey(zoom z: Int, order: TileOrder) -> UInt64 {
        order.sortKey(TileCoordinate(z: z, x: 0, y: 0)) ?? UInt64.max
    }

    /// True for the one shard of a one-shard plan: every tile of every zoom.
    package var coversAll: Bool { tiles.holdsEveryTile }

    /// The shard's part of zoom `z`.
    package func role(zoom z: Int) -> Role {
        let first = Self.firstKey(zoom: z, order: order)
        let end = Self.firstKey(zoom: z + 1, order: order)  // past the last tile of z
        if tiles.covers(first, end) { return .whole }
        return tiles.intersects(first, end) ? .range : .none
    }
}

extension ShardZooms {
    /// The lowest zoom a shard that does not hold the package metadata makes pieces at
    /// (`TilingParameters.firstPieceZoom`): the lowest zoom it encodes a tile of. Its feature phase still cuts each
    /// feature down the pyramid from the lowest zoom (so the cuts, and the pieces from that zoom up, are those of the
    /// one-machine build) but neither quantizes nor validates the pieces below it, which it would only sort and
    /// never read. Nil — every zoom's pieces — for the shard that holds the metadata (its counts: repairs found at
    /// any zoom, features collapsed at a zoom, classes by zoom; and the drop order's anchors, from each feature's
    /// pieces at its highest zoom), for a one-shard plan and for a shard that encodes no zoom.
    package static func firstPieceZoom(options o: ConvertOptions) -> Int? {
        guard let shard = o.shard, !shard.holdsMetadata, o.minZoom <= o.maxZoom else { return nil }
        let zooms = ShardZooms(tiles: shard.tiles, splitZoom: shard.splitZoom, order: o.format.tileOrder)
        guard !zooms.coversAll else { return nil }
        return (o.minZoom...o.maxZoom).first { zooms.role(zoom: $0) != .none }
    }
}

extension ShardZooms {
    /// The zooms below the max zoom at which the shard that holds the package metadata encodes no tile (the split
    /// zoom and up, but for a part of one its range reaches), where it makes no piece below a feature's highest zoom
    /// (`TilingParameters.skippedZooms`): what the metadata counts there comes from the other shards' notes
    /// (`ShardFeatureNotes`). Nil when there is none, and for every other shard.
    package static func metadataSkippedZooms(options o: ConvertOptions) -> [Int]? {
        guard let shard = o.shard, shard.holdsMetadata, o.minZoom < o.maxZoom, shard.splitZoom < o.maxZoom else {
            return nil
        }
        let zooms = ShardZooms(tiles: shard.tiles, splitZoom: shard.splitZoom, order: o.format.tileOrder)
        guard !zooms.coversAll else { return nil }
        let skipped = (max(o.minZoom, shard.splitZoom)..<o.maxZoom).filter { zooms.role(zoom: $0) == .none }
        return skipped.isEmpty ? nil : skipped
    }
}
