import KartpackCore
import TileArchive

/// Cuts a plan's tiles into its shards (`ShardTiles`): the zooms below the split zoom (thinned, so each needs all its
/// tiles in one shard: `ShardZooms`) go whole to the first shard, the tiles of the split zoom and up by area to the
/// others.
///
/// The area is walked in cells (`ShardCells`: the tiles of a zoom a few above the split zoom, `cellZoom`, in
/// PMTiles' Hilbert order, so that a run of cells is a compact patch; its columns in MBTiles' z/x/y order). Each
/// range shard takes a run of cells and, at every zoom from the split zoom up, the tiles over or under them (a
/// tile coarser than the cells goes with its first cell): one key range per zoom, since those tiles are one run of
/// keys in both orders. So a feature is read and tiled by the one shard whose area holds it (two or more only on
/// the runs' borders), not once per zoom. The runs hold about equal estimated feature pieces
/// (`ShardWorkEstimate`: every tile from the split zoom up weighs its features and one for itself), or, without an
/// estimate, about equal numbers of the area's cells.
package enum ShardSplitter {
    /// Most cells an area is walked in without an estimate: a coarser zoom's tiles when the cell zoom has more.
    static let maximumCells = 1 << 16

    /// The zoom of the cells for a split at `splitZoom` up to `maxZoom`: three above the split (64 cells a split
    /// zoom tile, so the shards' shares come out within a few percent), at most the max zoom.
    package static func cellZoom(splitZoom: Int, maxZoom: Int) -> Int { max(splitZoom, min(maxZoom, splitZoom + 3)) }

    /// The tiles of each of `shards` shards over `zooms` of data inside `bounds` (Web Mercator metres; nil: the
    /// world), split at `splitZoom`; one shard takes everything.
    package static func split(
        shards: Int, zooms: ClosedRange<Int>, splitZoom: Int, bounds: Bounds?, order: TileOrder,
        work: ShardWorkEstimate? = nil
    ) -> [ShardTiles] {
        precondition(shards >= 1)
        guard shards > 1 else { return [.all] }
        let at = min(max(splitZoom, zooms.lowerBound), zooms.upperBound)
        let first = ShardTiles([ShardKeyRange(lowerBound: 0, upperBound: ShardZooms.firstKey(zoom: at, order: order))])
        var cells = ShardCells(zoom: cellZoom(splitZoom: at, maxZoom: zooms.upperBound), order: order)
        var weights = work.map { $0.cellWeights(cells, from: at) } ?? []
        if weights.count < shards - 1 { (cells, weights) = areaCells(bounds, zoom: cells.zoom, order: order) }
        let lowers = [0] + cut(parts: shards - 1, weights: weights, end: cells.count) + [cells.count]
        return [first]
            + (1..<shards).map { k in
                ShardTiles(
                    (at...zooms.upperBound).map { z in
                        let last = k == shards - 1 && z == zooms.upperBound
                        return ShardKeyRange(
                            lowerBound: cells.key(zoom: z, index: lowers[k - 1]),
                            upperBound: last ? nil : cells.key(zoom: z, index: lowers[k]))
                    })
            }
    }

    /// Where `parts` runs of cells start, but the first (which starts at 0): cut between `weights` (cell index and
    /// weight, by index) so that each run weighs about the same: each cut falls at the cell whose middle reaches the
    /// run's share, so a run is off its share by at most half a cell at either end. Ascending, at most `end`
    /// (runs past the last cell are empty).
    static func cut(parts: Int, weights: [(index: UInt64, weight: Double)], end: UInt64) -> [UInt64] {
        let total = weights.reduce(0) { $0 + $1.weight }
        var cuts: [UInt64] = []
        var sum = 0.0
        for cell in weights where cuts.count < parts - 1 {
            while cuts.count < parts - 1, sum + cell.weight / 2 >= total * Double(cuts.count + 1) / Double(parts) {
                cuts.append(cell.index)
            }
            sum += cell.weight
        }
        // Too few cells for the shards (a tiny input): the last runs are empty, at the end.
        while cuts.count < parts - 1 { cuts.append(end) }
        for i in cuts.indices where i > 0 && cuts[i] <= cuts[i - 1] { cuts[i] = min(cuts[i - 1] + 1, end) }
        return cuts
    }

    /// The cells of the area (`bounds`, nil: the world) without an estimate, each weighing the tiles it stands for
    /// at one zoom: the tiles of `zoom` (its columns in z/x/y order), or a coarser zoom's when there would be more
    /// than `maximumCells`.
    static func areaCells(_ bounds: Bounds?, zoom: Int, order: TileOrder) -> (
        ShardCells, [(index: UInt64, weight: Double)]
    ) {
        let h = SphericalMercator.halfWorld
        let box = bounds ?? Bounds(minX: -h, minY: -h, maxX: h, maxY: h)
        var c = zoom
        while c > 0, let r = SphericalMercator.tileRange(covering: box, zoom: c), r.count > maximumCells { c -= 1 }
        let cells = ShardCells(zoom: c, order: order)
        guard let range = SphericalMercator.tileRange(covering: box, zoom: c) else { return (cells, []) }
        var weights: [UInt64: Double] = [:]
        for tile in range {
            guard let i = cells.index(of: tile) else { continue }
            weights[i, default: 0] += 1
        }
        return (cells, weights.sorted { $0.key < $1.key }.map { (index: $0.key, weight: $0.value) })
    }
}

/// The cells a plan cuts its area into (`ShardSplitter`): the tiles of `zoom` in PMTiles' Hilbert order, or the
/// zoom's columns in MBTiles' z/x/y order; a cell's index is its place in that order. A tile of another zoom goes
/// with the cell its first point is in (the first of the cells under it, or the one over it): the tiles of a run of
/// cells, at any zoom, are one run of that zoom's keys.
package struct ShardCells: Sendable, Hashable {
    package var zoom: Int
    package var order: TileOrder

    /// How many cells the zoom has: one past the last index.
    package var count: UInt64 { 1 << ((order == .hilbert ? 2 : 1) * UInt64(zoom)) }

    /// The cell a tile goes with: the one over it (a tile of `zoom` or deeper), or the first under it (a coarser
    /// tile). Nil for a tile that is not addressable.
    package func index(of t: TileCoordinate) -> UInt64? {
        let deeper = t.z >= zoom
        let s = abs(t.z - zoom)
        switch order {
        case .hilbert:
            guard deeper else {
                guard let id = PMTilesTileID.id(t) else { return nil }
                return (id - ShardZooms.firstKey(zoom: t.z, order: order)) << (2 * UInt64(s))
            }
            guard let id = PMTilesTileID.id(z: zoom, x: t.x >> s, y: t.y >> s) else { return nil }
            return id - ShardZooms.firstKey(zoom: zoom, order: order)
        case .zxy:
            return deeper ? UInt64(t.x >> s) : UInt64(t.x) << UInt64(s)
        }
    }

    /// The key of the first tile of zoom `z` that goes with cell `index` or a later one; for `count`, the first key
    /// past zoom `z`.
    package func key(zoom z: Int, index: UInt64) -> UInt64 {
        // A coarser zoom: the first of its tiles whose first cell is `index` or later.
        let bits: UInt64 = order == .hilbert ? 2 : 1  // index bits a zoom adds: 4 tiles a tile, or 2 columns
        let perTile: UInt64 = z >= zoom ? 1 : 1 << (bits * UInt64(zoom - z))
        let at = (index + perTile - 1) / perTile
        let s = z >= zoom ? UInt64(z - zoom) : 0
        guard at << (bits * s) < 1 << (bits * UInt64(z)), index < count else {
            return ShardZooms.firstKey(zoom: z + 1, order: order)
        }
        switch order {
        case .hilbert: return ShardZooms.firstKey(zoom: z, order: order) + at << (2 * s)
        case .zxy: return order.sortKey(TileCoordinate(z: z, x: Int(at << s), y: 0)) ?? UInt64.max
        }
    }
}
