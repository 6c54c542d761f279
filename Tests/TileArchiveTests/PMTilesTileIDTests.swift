import KartpackCore
import Testing
@testable import PMTiles
@testable import TileArchive

@Suite struct PMTilesTileIDTests {
    @Test(arguments: [
        (0, 0, 0, UInt64(0)), (1, 0, 0, 1), (1, 0, 1, 2), (1, 1, 1, 3), (1, 1, 0, 4), (2, 0, 0, 5), (2, 3, 1, 17),
        (12, 3423, 1763, 19_078_479),
    ])
    func matchesSpecVectors(z: Int, x: Int, y: Int, id: UInt64) {
        #expect(PMTilesTileID.id(z: z, x: x, y: y) == id)
        #expect(PMTilesTileID.coordinate(id) == TileCoordinate(z: z, x: x, y: y))
    }

    @Test func matchesTheZoomTwoGrid() {
        let grid: [[UInt64]] = [[5, 6, 19, 20], [8, 7, 18, 17], [9, 12, 13, 16], [10, 11, 14, 15]]
        for y in 0..<4 {
            for x in 0..<4 {
                #expect(PMTilesTileID.id(z: 2, x: x, y: y) == grid[y][x], "2/\(x)/\(y)")
            }
        }
    }

    @Test func zoomBasesCountAllLowerTiles() {
        #expect(PMTilesTileID.base(0) == 0)
        #expect(PMTilesTileID.base(3) == 21)
        #expect(PMTilesTileID.base(14) == 89_478_485)
        #expect(PMTilesTileID.base(32) == UInt64.max / 3)
    }

    @Test func roundTripsEveryTileUpToZoomFour() {
        var expected: UInt64 = 0
        var seen = Set<UInt64>()
        for z in 0...4 {
            var ids: [UInt64] = []
            for x in 0..<(1 << z) {
                for y in 0..<(1 << z) {
                    guard let id = PMTilesTileID.id(z: z, x: x, y: y) else {
                        Issue.record("no id for \(z)/\(x)/\(y)")
                        continue
                    }
                    ids.append(id)
                    #expect(PMTilesTileID.coordinate(id) == TileCoordinate(z: z, x: x, y: y))
                }
            }
            // The ids of one zoom are exactly the next 4^z integers.
            #expect(ids.sorted() == Array(expected..<(expected + UInt64(1 << (2 * z)))))
            expected += UInt64(1 << (2 * z))
            seen.formUnion(ids)
        }
        #expect(seen.count == 341)
    }

    @Test func roundTripsRandomHighZoomTiles() {
        var rng = SplitMix(seed: 42)
        for _ in 0..<5000 {
            let z = Int.random(in: 5...31, using: &rng)
            let x = Int.random(in: 0..<(1 << z), using: &rng)
            let y = Int.random(in: 0..<(1 << z), using: &rng)
            guard let id = PMTilesTileID.id(z: z, x: x, y: y) else {
                Issue.record("no id for \(z)/\(x)/\(y)")
                continue
            }
            #expect(id >= PMTilesTileID.base(z) && id < PMTilesTileID.base(z + 1))
            #expect(PMTilesTileID.coordinate(id) == TileCoordinate(z: z, x: x, y: y))
        }
        let corner = (1 << 31) - 1
        for (x, y) in [(0, 0), (corner, 0), (0, corner), (corner, corner)] {
            let id = PMTilesTileID.id(z: 31, x: x, y: y)
            #expect(id.flatMap(PMTilesTileID.coordinate) == TileCoordinate(z: 31, x: x, y: y))
        }
    }

    @Test func rejectsTilesOutsideTheGrid() {
        #expect(PMTilesTileID.id(z: -1, x: 0, y: 0) == nil)
        #expect(PMTilesTileID.id(z: 32, x: 0, y: 0) == nil)
        #expect(PMTilesTileID.id(z: 1, x: 2, y: 0) == nil)
        #expect(PMTilesTileID.id(z: 3, x: 0, y: -1) == nil)
        #expect(PMTilesTileID.coordinate(UInt64.max / 3) == nil)
        #expect(PMTilesTileID.coordinate(UInt64.max) == nil)
        #expect(PMTilesTileID.coordinate(UInt64.max / 3 - 1)?.z == 31)
    }

    @Test func tileOrdersCompareAsDeclared() {
        let a = TileCoordinate(z: 1, x: 1, y: 0)  // TileID 4
        let b = TileCoordinate(z: 1, x: 1, y: 1)  // TileID 3
        #expect(TileOrder.hilbert.precedes(b, a))
        #expect(!TileOrder.hilbert.precedes(a, b))
        #expect(TileOrder.zxy.precedes(a, b))
        #expect(TileOrder.zxy.sortKey(a)! < TileOrder.zxy.sortKey(b)!)
        #expect(TileOrder.hilbert.sortKey(a) == 4)
        #expect(TileCoordinate(z: 11, x: 327, y: 791).tmsY == 1256)
    }
}
