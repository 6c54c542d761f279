import Foundation
import GeometryOps
import KartpackCore
import Testing
import TileArchive

@testable import ConvertEngine

/// A plan with a split zoom: the zooms below it are the first shard's, whole; the tiles of the split zoom and up
/// are the other shards', each zoom whole, in part or not at all.
@Suite struct ShardZoomsTests {
    @Test(arguments: [TileOrder.hilbert, .zxy], [2, 3, 8])
    func theZoomsBelowTheSplitAreTheFirstShards(order: TileOrder, shards: Int) throws {
        let zooms = 6...14
        let ranges = ShardSplitter.split(
            shards: shards, zooms: zooms, splitZoom: 11, bounds: ShardSplitterTests.sweden, order: order)
        #expect(ranges.count == shards)
        try ShardSet.checkContiguous(ranges.enumerated().map { (shard: $0.offset, tiles: $0.element) }) {
            .partsDoNotFit(reason: $0)
        }
        #expect(
            ranges[0].ranges == [ShardKeyRange(lowerBound: 0, upperBound: ShardZooms.firstKey(zoom: 11, order: order))])
        for (i, r) in ranges.enumerated() {
            let shard = ShardZooms(tiles: r, splitZoom: 11, order: order)
            for z in zooms {
                let role = shard.role(zoom: z)
                if i == 0 {
                    #expect(role == (z < 11 ? .whole : .none), "shard \(i) zoom \(z)")
                } else if z < 11 {
                    #expect(role == .none, "shard \(i) zoom \(z)")
                }
            }
        }
        // Every tile of the area at the split zoom and above is in exactly one of the other shards.
        for z in 11...14 {
            for t in try #require(SphericalMercator.tileRange(covering: ShardSplitterTests.sweden, zoom: z)) {
                let key = try #require(order.sortKey(t))
                #expect(ranges.dropFirst().filter { $0.contains(key) }.count == 1)
            }
        }
    }

    @Test func oneShardHoldsEveryZoomWhole() {
        let ranges = ShardSplitter.split(shards: 1, zooms: 0...14, splitZoom: 5, bounds: nil, order: .hilbert)
        #expect(ranges == [ShardTiles.all])
        let shard = ShardZooms(tiles: ranges[0], splitZoom: 5, order: .hilbert)
        #expect(shard.coversAll)
        #expect((0...14).allSatisfy { shard.role(zoom: $0) == .whole })
    }

    /// A range shard tiles a feature only when its extent, grown by the buffer, reaches one of the shard's tiles.
    @Test func theFootprintKeepsTheFeaturesNearTheShardsTiles() throws {
        let order = TileOrder.hilbert
        let tile = TileCoordinate(z: 14, x: 8800, y: 4700)
        let key = try #require(order.sortKey(tile))
        var options = ConvertOptions(inputs: [], output: "x.pmtiles", format: .pmtiles)
        options.minZoom = 6
        options.maxZoom = 14
        options.shard = ShardTarget(
            planDigest: "", shard: 1, shards: 2,
            tiles: ShardTiles([ShardKeyRange(lowerBound: key, upperBound: key + 1)]),
            outputName: "x.pmtiles", splitZoom: 14)
        let footprint = try #require(ShardFootprint(options: options))
        let box = SphericalMercator.bounds(of: tile)
        let inside = Bounds(minX: box.minX + 10, minY: box.minY + 10, maxX: box.minX + 20, maxY: box.minY + 20)
        #expect(footprint.touches(inside))
        let size = box.maxX - box.minX
        let far = Bounds(
            minX: box.minX + 5 * size, minY: box.minY, maxX: box.minX + 5.5 * size, maxY: box.minY + size / 2)
        #expect(!footprint.touches(far))
        // Just across the tile's edge, inside the buffer: the tile holds a piece of it.
        let near = Bounds(minX: box.maxX + 1, minY: box.minY + 10, maxX: box.maxX + 2, maxY: box.minY + 20)
        #expect(footprint.touches(near))
        // The first shard tiles everything.
        options.shard?.tiles = ShardTiles([ShardKeyRange(lowerBound: 0, upperBound: key)])
        #expect(ShardFootprint(options: options) == nil)
    }
    /// A range shard makes pieces only from the lowest zoom it encodes (and at a feature's highest zoom), and
    /// those are the whole build's pieces: the cut still goes down through the zooms below. The first shard, which
    /// holds the metadata, makes every zoom's.
    @Test func aRangeShardMakesThePiecesOfItsZoomsOnly() throws {
        let order = TileOrder.hilbert
        let ranges = ShardSplitter.split(
            shards: 3, zooms: 6...14, splitZoom: 11, bounds: ShardSplitterTests.sweden, order: order)
        var options = ConvertOptions(inputs: [], output: "x.pmtiles", format: .pmtiles)
        options.minZoom = 6
        options.maxZoom = 14
        func target(_ i: Int) -> ShardTarget {
            ShardTarget(
                planDigest: "", shard: i, shards: 3, tiles: ranges[i], outputName: "x.pmtiles", splitZoom: 11)
        }
        options.shard = target(0)
        #expect(ShardZooms.firstPieceZoom(options: options) == nil)
        options.shard = target(1)
        #expect(ShardZooms.firstPieceZoom(options: options) == 11)
        options.shard = nil
        #expect(ShardZooms.firstPieceZoom(options: options) == nil)

        // A 3 km polygon with a jagged edge across tile borders, tiled by the whole build and by a range shard.
        var ring: [Double] = []
        for i in 0..<60 {
            let a = Double(i) / 60 * 2 * Double.pi
            let r = 1_500 + (i % 2 == 0 ? 40.0 : -25.0)
            ring += [2_000_000 + r * cos(a), 8_250_000 + r * sin(a)]
        }
        ring += ring[0...1]
        let g = Geometry.polygons([[ring]])
        var whole = TilingParameters(minZoom: 6, maxZoom: 14, extent: 4096, buffer: 80, simplify: 1)
        whole.smallFeatures = true
        var shard = whole
        shard.firstPieceZoom = 11
        func pieces(_ p: TilingParameters, zooms: ClosedRange<Int>) throws -> [TilePiece] {
            guard case .tiled(let t) = TileStage(engine: GeometryEngine(), parameters: p).tile(g, zooms: zooms) else {
                Issue.record("rejected")
                return []
            }
            return t.pieces
        }
        let all = try pieces(whole, zooms: 6...14)
        let some = try pieces(shard, zooms: 6...14)
        #expect(all.contains { $0.tile.z < 11 })
        #expect(!some.contains { $0.tile.z < 11 })
        let kept = all.filter { $0.tile.z >= 11 }
        #expect(kept.map(\.tile) == some.map(\.tile))
        #expect(kept.map(\.geometry) == some.map(\.geometry))
        // A feature whose highest zoom is below the shard's zooms keeps its pieces at that zoom.
        let low = try pieces(shard, zooms: 6...9)
        #expect(Set(low.map(\.tile.z)) == [9])
        #expect(low.map(\.geometry) == (try pieces(whole, zooms: 6...9)).filter { $0.tile.z == 9 }.map(\.geometry))
    }
}
