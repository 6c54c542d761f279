import KartpackCore
import Styling
import TileArchive

/// Where a range shard's tiles are (`ShardZooms`: its area's tiles from the split zoom up): a feature whose projected
/// extent, grown by the tile buffer, touches none of them has no piece there, so the shard neither repairs nor
/// tiles it and counts it as another shard's (`outsideShard` in its report).
///
/// Only a shard that does not hold the metadata skips features (the first shard reads everything: its part holds
/// the package's counts), and only when the output layers cannot depend on which features are read: a stylesheet
/// that sets `layer` routes features into layers in the order they come, so there every feature is tiled. The test
/// is conservative (a feature across the antimeridian or over many tiles is always tiled): a feature tiled without
/// need only costs time, since the encode phase keeps the shard's tiles alone.
package struct ShardFootprint: Sendable {
    /// The reason code of a feature left to the other shards.
    package static let code = ReasonCode.outsideShard
    /// Tiles of one zoom a feature's extent is checked against one by one; more: taken as touching.
    static let maximumTiles = 256

    var zooms: ClosedRange<Int>
    var tiles: ShardTiles
    var order: TileOrder
    /// The tile buffer and extent (`TilingParameters`), in tile units.
    var buffer: Double
    var extent: Int

    /// The footprint of a conversion's shard, or nil when the shard must tile every feature.
    package init?(options o: ConvertOptions) {
        guard let shard = o.shard, !shard.holdsMetadata, o.maxZoom >= shard.splitZoom,
            !(o.style.map(Self.setsLayer) ?? false)
        else { return nil }
        zooms = max(shard.splitZoom, o.minZoom)...o.maxZoom
        tiles = shard.tiles
        order = o.format.tileOrder
        buffer = o.buffer
        extent = o.extent
    }

    /// True when a stylesheet routes features into layers of its own (`layer`).
    static func setsLayer(_ sheet: Stylesheet) -> Bool {
        sheet.rules.contains { r in r.declarations.contains { $0.property == .layer } }
    }

    /// Whether a feature with this extent (Web Mercator metres, as projected) may have a piece in the shard's tiles.
    package func touches(_ b: Bounds?) -> Bool {
        let h = SphericalMercator.halfWorld
        guard let b, !b.isEmpty, b.minX > -h, b.maxX < h, b.minY > -h, b.maxY < h else { return true }
        for z in zooms {
            // The buffer and two tile units more: quantization and the buffer's edge never reach past it.
            let unit = SphericalMercator.tileSize(zoom: z) / Double(extent)
            let grown = b.expanded(by: (buffer + 2) * unit)
            guard let reached = SphericalMercator.tileRange(covering: grown, zoom: z) else { return true }
            if reached.count > Self.maximumTiles { return true }
            for t in reached {
                guard let key = order.sortKey(t) else { return true }
                if tiles.contains(key) { return true }
            }
        }
        return false
    }
}
