import KartpackCore
import Testing
import TileArchive

@testable import ConvertEngine

/// The plan's ranges: N of them, contiguous from key 0 to the end, cut where the tiles are.
@Suite struct ShardSplitterTests {
    /// Central Sweden, as the sample's headers give it, in metres.
    static let sweden = SphericalMercator.project(box: Bounds(minX: 14, minY: 59, maxX: 16, maxY: 61))

    @Test(arguments: [TileOrder.hilbert, .zxy], [1, 2, 3, 8, 64])
    func rangesAreContiguousAndCoverEveryKey(order: TileOrder, shards: Int) throws {
        let ranges = ShardSplitter.split(shards: shards, zooms: 0...14, bounds: Self.sweden, order: order)
        #expect(ranges.count == shards)
        #expect(ranges.first?.lowerBound == 0)
        #expect(ranges.last?.upperBound == nil)
        for i in ranges.indices.dropFirst() {
            #expect(ranges[i - 1].upperBound == ranges[i].lowerBound)
            #expect(ranges[i].lowerBound > ranges[i - 1].lowerBound)
        }
        try ShardSet.checkContiguous(ranges.enumerated().map { (shard: $0.offset, range: $0.element) }) {
            .partsDoNotFit(reason: $0)
        }
    }

    /// The estimate splits the area's tiles of every zoom about evenly: each shard holds between half and twice
    /// its share of them (the low zooms fall to the first shards, the max zoom's tiles to the others).
    @Test func theAreasTilesAreSharedEvenly() throws {
        let shards = 8
        let zooms = 6...12
        let ranges = ShardSplitter.split(shards: shards, zooms: zooms, bounds: Self.sweden, order: .hilbert)
        var counts = [Int](repeating: 0, count: shards)
        var total = 0
        for z in zooms {
            for t in try #require(SphericalMercator.tileRange(covering: Self.sweden, zoom: z)) {
                let key = try #require(PMTilesTileID.id(t))
                counts[try #require(ranges.firstIndex { $0.contains(key) })] += 1
                total += 1
            }
        }
        let share = Double(total) / Double(shards)
        #expect(counts.allSatisfy { Double($0) > share / 2 && Double($0) < share * 2 }, "\(counts)")
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
