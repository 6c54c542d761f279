import KartpackCore
import Testing
import TileArchive

@testable import ConvertEngine

/// The plan's work estimate: range shards cut by estimated feature pieces, not by tiles.
@Suite struct ShardWorkEstimateTests {
    /// 20,000 stands of about 200 m: nine in ten in a town of 100 km, the rest over a county of 800 km around it
    /// (Web Mercator metres near Uppsala).
    static func skewed(zooms: ClosedRange<Int> = 6...14) -> (work: ShardWorkEstimate, area: Bounds) {
        var work = ShardWorkEstimate(zooms: zooms, buffer: 80, extent: 4096)
        var seed: UInt64 = 42
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let (cx, cy) = (1_970_000.0, 8_400_000.0)
        for i in 0..<20_000 {
            let half = i % 10 == 0 ? 400_000.0 : 50_000.0
            let x = cx + (next() * 2 - 1) * half
            let y = cy + (next() * 2 - 1) * half
            work.add(
                box: Bounds(minX: x, minY: y, maxX: x + 200, maxY: y + 200), points: 17, parts: 1, attributeBytes: 60)
        }
        let area = Bounds(minX: cx - 400_000, minY: cy - 400_000, maxX: cx + 400_200, maxY: cy + 400_200)
        return (work, area)
    }

    /// Each shard's estimated pieces: the weights of the cells (at the split zoom) under its tiles.
    static func pieces(_ shards: [ShardTiles], _ cells: ShardCells, _ weights: [(index: UInt64, weight: Double)])
        -> [Double]
    {
        shards.map { t in
            weights.filter { t.contains(cells.key(zoom: cells.zoom, index: $0.index)) }.reduce(0) { $0 + $1.weight }
        }
    }

    /// With the estimate, the 7 range shards' estimated pieces are each within 10 % of their mean, at the default
    /// split (the max zoom) and split at zoom 11 (four zooms of pieces); cut by the area's tiles, the same input
    /// gives shards more than twice apart (so the test can tell the two).
    @Test(arguments: [14, 11])
    func rangeShardsGetAboutEqualPieces(splitZoom: Int) throws {
        let (work, area) = Self.skewed()
        let cells = ShardCells(zoom: splitZoom, order: .hilbert)
        let weights = work.cellWeights(cells, from: splitZoom)
        let byWork = ShardSplitter.split(
            shards: 8, zooms: 6...14, splitZoom: splitZoom, bounds: area, order: .hilbert, work: work)
        let shares = Self.pieces(Array(byWork.dropFirst()), cells, weights)
        let mean = shares.reduce(0, +) / Double(shares.count)
        #expect(shares.allSatisfy { abs($0 - mean) <= 0.1 * mean }, "\(shares)")
        #expect(shares.reduce(0, +) == weights.reduce(0) { $0 + $1.weight })

        let byTiles = ShardSplitter.split(shards: 8, zooms: 6...14, splitZoom: splitZoom, bounds: area, order: .hilbert)
        let uneven = Self.pieces(Array(byTiles.dropFirst()), cells, weights)
        #expect((uneven.max() ?? 0) > 2 * (uneven.min() ?? 0), "\(uneven)")
        try ShardSet.checkContiguous(byWork.enumerated().map { (shard: $0.offset, tiles: $0.element) }) {
            .partsDoNotFit(reason: $0)
        }
    }

    /// Every feature is tallied: the pieces at a zoom are at least the features, and a cell's weight from a zoom
    /// up holds the tiles of every zoom under it.
    @Test func everyFeatureIsTallied() {
        let (work, _) = Self.skewed()
        #expect(work.features == 20_000)
        let z14 = work.cellWeights(ShardCells(zoom: 14, order: .hilbert), from: 14)
        let z13 = work.cellWeights(ShardCells(zoom: 13, order: .hilbert), from: 13)
        let at14 = z14.reduce(0) { $0 + $1.weight } - Double(z14.count)
        #expect(at14 >= 20_000)
        #expect(z13.count < z14.count)
        #expect(z13.reduce(0) { $0 + $1.weight } > z14.reduce(0) { $0 + $1.weight })
    }

    /// The densest tile's bounds only grow towards the lower zooms, and the lowest unthinned zoom follows the
    /// limits: far under them from zoom 6, over them even at zoom 14, and in between a zoom whose densest tile is
    /// under the margin while the zoom below is not.
    @Test func theLowestUnthinnedZoomFollowsTheLimits() throws {
        let (work, _) = Self.skewed()
        let densest = work.densest()
        #expect(densest.map(\.zoom) == Array(6...14))
        for (low, high) in zip(densest, densest.dropFirst()) {
            #expect(low.features >= high.features && low.bytes >= high.bytes, "\(low) \(high)")
        }
        #expect(work.lowestUnthinnedZoom(maxFeatures: 1_000_000, maxBytes: 1 << 40, margin: 0.5) == 6)
        #expect(work.lowestUnthinnedZoom(maxFeatures: 1, maxBytes: 1 << 40, margin: 0.5) == nil)
        let z = try #require(work.lowestUnthinnedZoom(maxFeatures: 200_000, maxBytes: 500_000, margin: 0.5))
        let at = try #require(densest.first { $0.zoom == z })
        #expect(at.bytes <= 250_000 && at.features <= 100_000)
        if z > 6 {
            let below = try #require(densest.first { $0.zoom == z - 1 })
            #expect(below.bytes > 250_000 || below.features > 100_000)
        }
    }
}
