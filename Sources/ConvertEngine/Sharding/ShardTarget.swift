import Foundation
import KartpackCore
import TileArchive

/// What makes a conversion one shard of a plan (`ConvertOptions.shard`): the features are read as in the whole
/// build, but only the shard's `tiles` are encoded (`ShardZooms`: the first shard holds the thinned zooms below
/// `splitZoom` whole, the others an area's tiles of the zooms above), and the output is a part file (`ShardPart`)
/// holding them, for `kartpack merge`. The first shard's part also holds the package metadata.
package struct ShardTarget: Sendable {
    package var planDigest: String
    package var shard: Int
    package var shards: Int
    package var tiles: ShardTiles
    /// The file name of the package the merge publishes (its metadata is named after it).
    package var outputName: String
    /// The plan's split zoom (`ShardZooms`): the zooms below it are the first shard's, whole.
    package var splitZoom: Int
    /// Files the plan found with stored record boxes it cannot trust: read whole (`RecordBoxFilter.readWhole`).
    package var untrustedBoxes = UntrustedRecordBoxes()

    /// True for the part that holds the package metadata: the first shard's, which encodes every thinned zoom.
    package var holdsMetadata: Bool { tiles.holdsFirstTile }

    package init(
        planDigest: String, shard: Int, shards: Int, tiles: ShardTiles, outputName: String, splitZoom: Int
    ) {
        self.splitZoom = splitZoom
        self.planDigest = planDigest
        self.shard = shard
        self.shards = shards
        self.tiles = tiles
        self.outputName = outputName
    }
}

extension PublishPhase {
    /// Writes the shard's part instead of a package: the shard's tiles, in archive order, the whole
    /// package's metadata (but for the counts the merge completes from `notes`) and the shard's feature notes. The
    /// part goes to the settings' output (the staging name `StagedConversion` chose).
    func publishPart(
        _ tiles: EncodedTiles, zooms: ClosedRange<Int>, metadata: ArchiveMetadata, target: ShardTarget,
        format: ArchiveFormat, path: String, notes: ShardFeatureNotes? = nil, checkCancelled: () throws -> Void
    ) throws -> ArchiveSummary {
        let header = ShardPartHeader(
            planDigest: target.planDigest, shard: target.shard, shards: target.shards, tiles: target.tiles,
            outputName: target.outputName, format: format, metadata: target.holdsMetadata ? metadata.shardJSON : .null)
        let order = format.tileOrder
        var contents = Set<Int>()  // distinct tiles, by hash (the report's count only)
        var zoomsWritten: [Int] = []
        let count = try ShardPart.write(path: path, header: header, order: order, notes: notes) { write in
            for z in zooms {
                try checkCancelled()
                try tiles.forEachTile(zoom: z) { tile, bytes in
                    guard let key = order.sortKey(tile), target.tiles.contains(key) else { return }
                    if zoomsWritten.last != z { zoomsWritten.append(z) }
                    contents.insert(bytes.hashValue)
                    try write(tile, bytes)
                }
            }
        }
        var st = stat()
        let size = stat(path, &st) == 0 ? UInt64(st.st_size) : 0
        return ArchiveSummary(
            format: format, path: path, addressedTiles: count, tileEntries: count, tileContents: contents.count,
            fileBytes: size, minZoom: zoomsWritten.first ?? zooms.lowerBound,
            maxZoom: zoomsWritten.last ?? zooms.upperBound,
            bounds: metadata.bounds ?? GeoBounds(west: -180, south: -85, east: 180, north: 85))
    }
}
