import GeometryAlgorithms
import KartpackTestSupport
import Testing

/// An axis-aligned square as an MVT exterior (positive doubled area, y down).
private func square(_ x: Int32, _ y: Int32, _ side: Int32) -> [[TilePoint]] {
    [[TilePoint(x, y), TilePoint(x + side, y), TilePoint(x + side, y + side), TilePoint(x, y + side)]]
}

@Suite struct CoverageUnionTests {
    @Test func twoSquaresSharingAnEdgeBecomeOneRectangleWithFourCorners() throws {
        let union = try #require(CoverageUnion.union([square(0, 0, 10), square(10, 0, 10)]))
        #expect(union.count == 1)
        #expect(union[0].count == 1)
        // The ends of the cancelled border are collinear and go: a plain rectangle.
        #expect(Set(union[0][0]) == [TilePoint(0, 0), TilePoint(20, 0), TilePoint(20, 10), TilePoint(0, 10)])
        #expect(doubledSignedArea(union[0][0]) == 2 * 200)
        #expect(CoverageMeasure.isValidOnGrid(union))
    }

    @Test func aRingOfCellsAroundAMissingOneKeepsItsHole() throws {
        var cells: [[[TilePoint]]] = []
        for i in 0..<3 {
            for j in 0..<3 where !(i == 1 && j == 1) { cells.append(square(Int32(i) * 10, Int32(j) * 10, 10)) }
        }
        let union = try #require(CoverageUnion.union(cells))
        #expect(union.count == 1)
        #expect(union[0].count == 2, "an exterior and the centre cell as its hole")
        #expect(doubledSignedArea(union[0][0]) == 2 * 900)
        #expect(doubledSignedArea(union[0][1]) == -2 * 100)
        #expect(CoverageMeasure.isValidOnGrid(union))
    }

    @Test func aTJunctionIsNodedSoTheBorderStillCancels() throws {
        // A 20 × 20 square beside two 10 × 10 ones stacked: its right edge has no vertex at (20, 10).
        let union = try #require(CoverageUnion.union([square(0, 0, 20), square(20, 0, 10), square(20, 10, 10)]))
        #expect(union.count == 1 && union[0].count == 1)
        #expect(Set(union[0][0]) == [TilePoint(0, 0), TilePoint(30, 0), TilePoint(30, 20), TilePoint(0, 20)])
    }

    @Test func aStandFillingAHoleOfItsNeighbourClosesTheHole() throws {
        let frame = square(0, 0, 30)[0]
        let hole = [TilePoint(10, 10), TilePoint(10, 20), TilePoint(20, 20), TilePoint(20, 10)]
        let union = try #require(CoverageUnion.union([[frame, hole], square(10, 10, 10)]))
        #expect(union.count == 1 && union[0].count == 1)
        #expect(doubledSignedArea(union[0][0]) == 2 * 900)
    }

    @Test func disjointPolygonsStayApart() throws {
        let union = try #require(CoverageUnion.union([square(0, 0, 10), square(20, 0, 10)]))
        #expect(union.count == 2)
        #expect(CoverageMeasure.isValidOnGrid(union))
    }

    @Test func polygonsThatOverlapAreRefusedOrLeftInvalidForTheCaller() {
        // The same square twice: every edge twice in one direction.
        #expect(CoverageUnion.union([square(0, 0, 10), square(0, 0, 10)]) == nil)
        // Partly overlapping: the edges left cross, which the caller's validity check sees.
        if let union = CoverageUnion.union([square(0, 0, 10), square(5, 5, 10)]) {
            #expect(!CoverageMeasure.isValidOnGrid(union))
        }
        // Touching at a corner only: nothing cancels, the two rings meet at a vertex.
        if let union = CoverageUnion.union([square(0, 0, 10), square(10, 10, 10)]) {
            #expect(!CoverageMeasure.isValidOnGrid(union))
        }
    }

    @Test func aJitteredCoverageUnitesIntoItsFrameWithTheSameArea() throws {
        var rng = SplitMix64(seed: 14)
        let grid = CoverageFixtures.jitteredGrid(columns: 8, rows: 6, cell: 200, rng: &rng)
        let polygons = grid.features.flatMap { $0 }
        let union = try #require(CoverageUnion.union(polygons))
        #expect(union.count == 1 && union[0].count == 1, "the frame of the grid, no holes")
        #expect(CoverageMeasure.isValidOnGrid(union))
        let area = grid.features.reduce(Int128(0)) { $0 + CoverageMeasure.doubledArea($1) }
        #expect(CoverageMeasure.doubledArea(union) == area)
        // The outer border stays straight: the frame is a rectangle.
        #expect(union[0][0].count == 4)
    }

    @Test func theResultDoesNotDependOnTheOrderOfTheInputs() throws {
        var rng = SplitMix64(seed: 3)
        let grid = CoverageFixtures.jitteredGrid(columns: 5, rows: 5, cell: 150, islandChance: 0.3, rng: &rng)
        let picked = grid.features.enumerated().filter { $0.offset % 3 != 1 }.flatMap { $0.element }
        let forward = try #require(CoverageUnion.union(picked))
        let backward = try #require(CoverageUnion.union(picked.reversed()))
        #expect(forward == backward)
    }
}
