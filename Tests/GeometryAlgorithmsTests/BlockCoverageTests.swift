import Foundation
import GeometryAlgorithms
import KartpackCore
import KartpackTestSupport
import Testing

/// The grid repair's last resort (GridRepair.swift step 4): blocks at least half covered, traced into polygons
/// that are valid on the integer grid whatever the input.
@Suite struct BlockCoverageTests {
    static func rect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [Double] {
        [x0, y0, x1, y0, x1, y1, x0, y1]
    }

    /// Valid as the encoder needs it: no two edges meet (sweep), exteriors positive, holes negative and inside.
    static func expectValid(_ polygons: [[[TilePoint]]], _ note: String = "") {
        let rings = polygons.flatMap { $0 }.map { $0.map { SegmentSweep.Vertex(x: Int64($0.x), y: Int64($0.y)) } }
        #expect(SegmentSweep.edgesAreDisjoint(rings) == true, "\(note)")
        for p in polygons {
            #expect(doubledSignedArea(p[0]) > 0, "\(note)")
            for hole in p.dropFirst() {
                #expect(doubledSignedArea(hole) < 0, "\(note)")
                #expect(RingValidator.locate(hole[0], in: p[0]) == .inside, "\(note)")
            }
        }
    }

    @Test func aRectangleOnTheBlockLinesComesBackAsItIs() throws {
        let out = try #require(BlockCoverage.polygons([Self.rect(8, 4, 40, 20)], block: 4))
        #expect(out == [[[TilePoint(8, 4), TilePoint(40, 4), TilePoint(40, 20), TilePoint(8, 20)]]])
    }

    @Test func theOuterLinesArePulledInToTheIntegerBounds() throws {
        // 1.5…9.2 covers blocks [0,4) (2.5 of 4: in), [4,8) and [8,12) (1.2 of 4: out) on the centre line.
        let out = try #require(BlockCoverage.polygons([Self.rect(1.5, 0, 9.2, 4)], block: 4))
        #expect(out == [[[TilePoint(1, 0), TilePoint(8, 0), TilePoint(8, 4), TilePoint(1, 4)]]])
    }

    @Test func blocksTouchingAtACornerAreJoined() throws {
        let out = try #require(BlockCoverage.polygons([Self.rect(0, 0, 4, 4), Self.rect(4, 4, 8, 8)], block: 4))
        #expect(out.count == 1)
        Self.expectValid(out)
        // Three blocks: the two drawn and the one added above the contact.
        #expect(doubledSignedArea(out[0][0]) == 2 * 48)
    }

    @Test func aHoleStaysAHoleOfItsExterior() throws {
        // Even-odd: the inner square is a hole; a separate island lies in it.
        let rings = [Self.rect(0, 0, 40, 40), Self.rect(8, 8, 32, 32), Self.rect(16, 16, 24, 24)]
        let out = try #require(BlockCoverage.polygons(rings, block: 4))
        #expect(out.count == 2)
        #expect(out[0].count == 2)
        #expect(out[1].count == 1)
        Self.expectValid(out)
    }

    @Test func halfCoverageDecides() throws {
        // Blocks of 8: a strip 3 units wide inside the first column is out, one 5 units wide is in.
        #expect(try #require(BlockCoverage.polygons([Self.rect(0, 0, 3, 8)], block: 8)).isEmpty)
        #expect(try #require(BlockCoverage.polygons([Self.rect(0, 0, 5, 8)], block: 8)).count == 1)
    }

    /// Thousands of random overlapping slivers (what a clipped dense saw-tooth or star leaves in a tile): the
    /// result is valid and the same every time.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func randomSliversGiveValidPolygons(_ seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var rings: [[Double]] = []
        for _ in 0..<3_000 {
            let x = Double(rng.next() % 4096)
            let y = Double(rng.next() % 4096)
            let a = Double(rng.next() % 6283) / 1000
            let len = Double(rng.next() % 3000)
            let w = Double(rng.next() % 100) / 50
            let dx = cos(a)
            let dy = sin(a)
            rings.append([x, y, x + len * dx, y + len * dy, x + len * dx - w * dy, y + len * dy + w * dx])
        }
        let block = BlockCoverage.blockSize(for: rings)
        #expect(block >= BlockCoverage.minimumBlock)
        let out = try #require(BlockCoverage.polygons(rings, block: block))
        #expect(!out.isEmpty)
        Self.expectValid(out, "seed \(seed), block \(block)")
        #expect(BlockCoverage.polygons(rings, block: block) == out)
        // A checkerboard-prone small block size is valid too.
        let fine = try #require(BlockCoverage.polygons(rings, block: 4))
        Self.expectValid(fine, "seed \(seed), block 4")
    }

    @Test func theBlockGrowsWithTheCrossingsNeeded() {
        let short = [Self.rect(0, 0, 4096, 4096)]
        #expect(BlockCoverage.blockSize(for: short) == BlockCoverage.minimumBlock)
        // 20 000 slivers spanning 4096 rows: 20 000 × 2 × 4096 / b crossings within the budget.
        var tall: [[Double]] = []
        for i in 0..<20_000 { tall.append(Self.rect(Double(i) * 0.2, 0, Double(i) * 0.2 + 0.1, 4096)) }
        let b = BlockCoverage.blockSize(for: tall)
        #expect(Double(2 * 20_000 * 4096) / Double(b) + 80_000 <= Double(BlockCoverage.crossingBudget))
        #expect(Double(2 * 20_000 * 4096) / Double(b / 2) + 80_000 > Double(BlockCoverage.crossingBudget))
    }
}
