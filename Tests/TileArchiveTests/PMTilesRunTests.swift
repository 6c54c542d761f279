import KartpackCore
import PMTiles
import Testing

/// `PMTilesTileID.forEachTile(inRun:)`: the tiles of a run-length entry inside an area, within a work budget.
@Suite struct PMTilesRunTests {
    private func tiles(first: UInt64, count: UInt64, maxZoom: Int, area: (Int) -> TileRange?) -> Set<TileCoordinate> {
        var out: Set<TileCoordinate> = []
        var budget = 1 << 20
        _ = PMTilesTileID.forEachTile(inRun: first, count: count, maxZoom: maxZoom, budget: &budget, within: area) {
            out.insert($0)
            return true
        }
        return out
    }

    @Test func everyTileOfTheRunInTheAreaIsVisited() {
        // Zooms 0...3 in one run; the area is the north-west quarter at each zoom.
        let area: (Int) -> TileRange? = { z in
            let half = max(0, (1 << z) / 2 - 1)
            return TileRange(z: z, minX: 0, minY: 0, maxX: half, maxY: half)
        }
        let got = tiles(first: 0, count: 85, maxZoom: 3, area: area)
        var want: Set<TileCoordinate> = []
        for z in 0...3 { for t in area(z)! { want.insert(t) } }
        #expect(got == want)
        // A run that starts at zoom 2's last tile and ends in zoom 3 gives only its own tiles.
        let partial = tiles(first: 20, count: 5, maxZoom: 3) { z in TileRange(z: z, minX: 0, minY: 0, maxX: 7, maxY: 7)
        }
        let ids = Set(partial.compactMap { PMTilesTileID.id($0) })
        #expect(ids == Set(20..<25))
    }

    @Test func zoomsAboveTheCapAreLeftOut() {
        let got = tiles(first: 0, count: 85, maxZoom: 1) { z in TileRange(z: z, minX: 0, minY: 0, maxX: 7, maxY: 7) }
        #expect(got.count == 5)
    }

    @Test func aHugeRunStaysWithinTheBudget() {
        var budget = 1000
        var seen = 0
        let done = PMTilesTileID.forEachTile(
            inRun: 0, count: UInt64(UInt32.max), maxZoom: 31, budget: &budget,
            within: { z in TileRange(z: z, minX: 0, minY: 0, maxX: (1 << z) - 1, maxY: (1 << z) - 1) }
        ) { _ in
            seen += 1
            return true
        }
        #expect(!done)
        #expect(budget < 0)
        #expect(seen <= 1000)
    }
}
