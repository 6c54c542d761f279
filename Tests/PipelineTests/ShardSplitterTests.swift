import KartpackCore
import KartpackJSON
import Testing
import TileArchive

@testable import ConvertEngine

/// The plan's shards: the first holds every zoom below the split zoom, the others an area each at every zoom from
/// the split zoom up; together they hold every key once.
@Suite struct ShardSplitterTests {
    /// Central Sweden, as the sample's headers give it, in metres.
    static let sweden = SphericalMercator.project(box: Bounds(minX: 14, minY: 59, maxX: 16, maxY: 61))

    @Test(arguments: [TileOrder.hilbert, .zxy], [1, 2, 3, 8, 64])
    func shardsHoldEveryKeyOnce(order: TileOrder, shards: Int) throws {
        let tiles = ShardSplitter.split(shards: shards, zooms: 0...14, splitZoom: 10, bounds: Self.sweden, order: order)
        #expect(tiles.count == shards)
        #expect(tiles[0].holdsFirstTile)
        #expect(tiles.dropFirst().allSatisfy { !$0.holdsFirstTile })
        try ShardSet.checkContiguous(tiles.enumerated().map { (shard: $0.offset, tiles: $0.element) }) {
            .partsDoNotFit(reason: $0)
        }
        // A range shard holds at most one range a zoom (its area's tiles), so the merge reads each part once.
        for t in tiles.dropFirst() { #expect(t.ranges.count <= 5, "\(t.text)") }
    }

    /// Each range shard's tiles at every zoom cover one area: from the cell zoom up a tile is its parent's shard's,
    /// below it a tile is the shard's of its first child in key order. So a feature is tiled by the shards whose
    /// area it reaches, not one a zoom.
    @Test(arguments: [TileOrder.hilbert, .zxy])
    func aRangeShardHoldsOneAreaAtEveryZoom(order: TileOrder) throws {
        let (split, top) = (10, 14)
        let tiles = ShardSplitter.split(shards: 8, zooms: 6...top, splitZoom: split, bounds: Self.sweden, order: order)
        let cellZoom = ShardSplitter.cellZoom(splitZoom: split, maxZoom: top)
        #expect(cellZoom == 13)
        func owner(_ t: TileCoordinate) throws -> Int {
            let key = try #require(order.sortKey(t))
            let found = tiles.indices.filter { tiles[$0].contains(key) }
            #expect(found.count == 1)
            return try #require(found.first)
        }
        for z in split...top {
            for t in try #require(SphericalMercator.tileRange(covering: Self.sweden, zoom: z)) {
                let o = try owner(t)
                #expect(o > 0)
                if z > cellZoom {
                    #expect(o == (try owner(TileCoordinate(z: z - 1, x: t.x / 2, y: t.y / 2))), "\(t)")
                } else if z < cellZoom {
                    let children = [(0, 0), (1, 0), (0, 1), (1, 1)].map {
                        TileCoordinate(z: z + 1, x: 2 * t.x + $0.0, y: 2 * t.y + $0.1)
                    }
                    let first = try #require(children.min { (order.sortKey($0) ?? 0) < (order.sortKey($1) ?? 0) })
                    #expect(o == (try owner(first)), "\(t)")
                }
            }
        }
    }

    /// Without an estimate, the area's tiles are shared about evenly: each range shard holds between half and
    /// twice its share of them.
    @Test(arguments: [TileOrder.hilbert, .zxy])
    func theAreasTilesAreSharedEvenly(order: TileOrder) throws {
        let shards = 8
        let tiles = ShardSplitter.split(shards: shards, zooms: 6...12, splitZoom: 10, bounds: Self.sweden, order: order)
        var counts = [Int](repeating: 0, count: shards)
        var total = 0
        for z in 10...12 {
            for t in try #require(SphericalMercator.tileRange(covering: Self.sweden, zoom: z)) {
                let key = try #require(order.sortKey(t))
                counts[try #require(tiles.firstIndex { $0.contains(key) })] += 1
                total += 1
            }
        }
        #expect(counts[0] == 0)
        let share = Double(total) / Double(shards - 1)
        #expect(counts.dropFirst().allSatisfy { Double($0) > share / 2 && Double($0) < share * 2 }, "\(counts)")
    }

    /// More shards than cells (a tiny area at a low split zoom): the last shards hold nothing, the plan still
    /// holds every key once.
    @Test func moreShardsThanCellsLeaveTheLastEmpty() throws {
        let tiny = SphericalMercator.project(box: Bounds(minX: 15, minY: 60, maxX: 15.001, maxY: 60.001))
        let tiles = ShardSplitter.split(shards: 6, zooms: 0...3, splitZoom: 1, bounds: tiny, order: .hilbert)
        try ShardSet.checkContiguous(tiles.enumerated().map { (shard: $0.offset, tiles: $0.element) }) {
            .partsDoNotFit(reason: $0)
        }
        #expect(tiles.count == 6)
    }

    /// Ranges that meet are joined, empty ones dropped, and the JSON a plan writes reads back.
    @Test func shardTilesJoinAndRoundTrip() throws {
        let t = ShardTiles([
            ShardKeyRange(lowerBound: 20, upperBound: 30), ShardKeyRange(lowerBound: 5, upperBound: 10),
            ShardKeyRange(lowerBound: 10, upperBound: 12), ShardKeyRange(lowerBound: 15, upperBound: 15),
            ShardKeyRange(lowerBound: 40, upperBound: nil),
        ])
        #expect(t.text == "5..<12, 20..<30, 40..<end")
        #expect(t.contains(5) && t.contains(11) && !t.contains(12) && t.contains(29) && !t.contains(30))
        #expect(t.contains(1 << 60))
        #expect(t.covers(20, 30) && !t.covers(11, 21) && t.intersects(11, 21) && !t.intersects(12, 20))
        #expect(ShardTiles(json: t.json) == t)
        // Overlapping or backwards ranges are refused.
        let overlapping: JSONValue = .array([
            .object([("from", .string("0")), ("to", .string("10"))]),
            .object([("from", .string("5")), ("to", .null)]),
        ])
        #expect(ShardTiles(json: overlapping) == nil)
        #expect(ShardTiles(json: .array([.object([("from", .string("9")), ("to", .string("3"))])])) == nil)
    }

    /// The PMTiles TileIDs of a tile's descendants at a zoom are one run starting where the splitter says.
    @Test func hilbertDescendantsAreOneRun() throws {
        let parent = TileCoordinate(z: 5, x: 17, y: 9)
        let z = 8
        let shift = z - parent.z
        let base = try #require(PMTilesTileID.id(z: z, x: 0, y: 0))
        let coarse = try #require(PMTilesTileID.id(parent)) - (try #require(PMTilesTileID.id(z: 5, x: 0, y: 0)))
        let start = base + coarse << (2 * UInt64(shift))
        var ids: [UInt64] = []
        for x in (parent.x << shift)..<((parent.x + 1) << shift) {
            for y in (parent.y << shift)..<((parent.y + 1) << shift) {
                ids.append(try #require(PMTilesTileID.id(z: z, x: x, y: y)))
            }
        }
        ids.sort()
        #expect(ids.first == start)
        #expect(ids.last == start + UInt64(ids.count) - 1)
    }
}
