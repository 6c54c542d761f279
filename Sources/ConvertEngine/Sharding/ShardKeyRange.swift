import KartpackCore
import TileArchive

/// The tiles of one shard: the order keys (`TileOrder.sortKey`, the PMTiles TileID or packed z/x/y) from
/// `lowerBound` up to, not including, `upperBound` (nil: to the end). A plan's ranges are contiguous, the first
/// starts at 0 and the last has no end, so every tile of every zoom belongs to exactly one shard.
package struct ShardKeyRange: Sendable, Hashable {
    package var lowerBound: UInt64
    package var upperBound: UInt64?

    package init(lowerBound: UInt64, upperBound: UInt64?) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    package func contains(_ key: UInt64) -> Bool { key >= lowerBound && upperBound.map { key < $0 } ?? true }

    package var text: String { "\(lowerBound)..<" + (upperBound.map(String.init) ?? "end") }
}

/// Splits the archive's tile order into N contiguous ranges of about equal cost, from a cheap estimate: every
/// tile at every zoom that the inputs' bounds touch costs the same. Each zoom is walked in cells (the tiles of a
/// coarse zoom, 7 or finer until the area holds 1,024 of them, in Hilbert order for PMTiles; columns of them for
/// MBTiles' z/x/y order), each standing for the tiles below it, so the estimate is a few thousand cells whatever
/// the max zoom. Low zooms, which hold few tiles, fall to the first shard; the cuts fall at the high zooms, where
/// the tiles are.
package enum ShardSplitter {
    static let coarseZoom = 7
    /// Cells a zoom is walked in at least, where its tiles allow (finer coarse zooms for a small area).
    static let minimumCells = 1024

    /// The ranges for `shards` shards over `zooms` of data inside `bounds` (Web Mercator metres; nil: the world).
    package static func split(shards: Int, zooms: ClosedRange<Int>, bounds: Bounds?, order: TileOrder)
        -> [ShardKeyRange]
    {
        precondition(shards >= 1)
        return cut(shards: shards, cells: self.cells(zooms: zooms, bounds: bounds, order: order))
    }

    /// `shards` contiguous ranges from key 0 to the end, cut between `cells` (in key order) so that each range's
    /// cells weigh about the same: each cut falls before the cell whose middle reaches the range's share, so a
    /// range is off its share by at most half a cell at either end.
    package static func cut(shards: Int, cells: [(key: UInt64, weight: Double)]) -> [ShardKeyRange] {
        precondition(shards >= 1)
        let total = cells.reduce(0) { $0 + $1.weight }
        var cuts: [UInt64] = []
        var sum = 0.0
        var next = 1
        for cell in cells where next < shards {
            while next < shards, sum + cell.weight / 2 >= total * Double(next) / Double(shards) {
                cuts.append(cell.key)
                next += 1
            }
            sum += cell.weight
        }
        // Too few cells for the shards (a tiny input): the last shards get empty ranges at the end.
        while cuts.count < shards - 1 { cuts.append(cuts.last.map { $0 &+ 1 } ?? 1) }
        for i in cuts.indices where i > 0 && cuts[i] <= cuts[i - 1] { cuts[i] = cuts[i - 1] + 1 }
        let lowers = [0] + cuts
        return lowers.indices.map { i in
            ShardKeyRange(lowerBound: lowers[i], upperBound: i + 1 < lowers.count ? lowers[i + 1] : nil)
        }
    }

    /// The ranges for `shards` shards when the zooms below `splitZoom` (thinned, so each needs all its tiles in one
    /// shard: `ShardZooms`) go whole to the first shard and the tiles of `splitZoom` up to the top of `zooms` are
    /// split among the others; one shard takes everything.
    /// With `work` (the plan's estimate of the features in each tile), the others' ranges hold about equal
    /// estimated feature pieces; without, about equal numbers of the area's tiles.
    package static func split(
        shards: Int, zooms: ClosedRange<Int>, splitZoom: Int, bounds: Bounds?, order: TileOrder,
        work: ShardWorkEstimate? = nil
    ) -> [ShardKeyRange] {
        precondition(shards >= 1)
        guard shards > 1 else { return [ShardKeyRange(lowerBound: 0, upperBound: nil)] }
        let at = min(max(splitZoom, zooms.lowerBound), zooms.upperBound)
        var lowers = [0, ShardZooms.firstKey(zoom: at, order: order)]
        let cells = work.map { $0.weightedCells(from: at, order: order) } ?? []
        if cells.count >= shards - 1 {
            lowers += cut(shards: shards - 1, cells: cells).dropFirst().map(\.lowerBound)
        } else {
            lowers += split(shards: shards - 1, zooms: at...zooms.upperBound, bounds: bounds, order: order)
                .dropFirst().map(\.lowerBound)
        }
        for i in 1..<lowers.count where lowers[i] <= lowers[i - 1] { lowers[i] = lowers[i - 1] + 1 }
        return lowers.indices.map { i in
            ShardKeyRange(lowerBound: lowers[i], upperBound: i + 1 < lowers.count ? lowers[i + 1] : nil)
        }
    }

    /// The cells of every zoom in key order: the key of their first tile and how many tiles they stand for.
    package static func cells(
        zooms: ClosedRange<Int>, bounds: Bounds?, order: TileOrder
    ) -> [(key: UInt64, weight: Double)] {
        let h = SphericalMercator.halfWorld
        let box = bounds ?? Bounds(minX: -h, minY: -h, maxX: h, maxY: h)
        var cells: [(key: UInt64, weight: Double)] = []
        for z in zooms {
            // A coarse zoom with enough cells to cut between (a small area needs a finer one).
            var c = min(z, coarseZoom)
            while c < z, let r = SphericalMercator.tileRange(covering: box, zoom: c), r.count < minimumCells {
                c += 1
            }
            guard let range = SphericalMercator.tileRange(covering: box, zoom: c) else { continue }
            let shift = UInt64(z - c)
            let below = Double(UInt64(1) << (2 * shift))
            switch order {
            case .hilbert:
                guard let base = PMTilesTileID.id(z: z, x: 0, y: 0), let coarseBase = PMTilesTileID.id(z: c, x: 0, y: 0)
                else { continue }
                for tile in range {
                    guard let id = PMTilesTileID.id(tile) else { continue }
                    cells.append((base + ((id - coarseBase) << (2 * shift)), below))
                }
            case .zxy:
                let rows = Double(range.maxY - range.minY + 1)
                for x in range.minX...range.maxX {
                    guard let key = order.sortKey(TileCoordinate(z: z, x: x << Int(shift), y: 0)) else { continue }
                    cells.append((key, rows * below))
                }
            }
        }
        cells.sort { $0.key < $1.key }
        return cells
    }
}
