import GeometryAlgorithms
import KartpackCore
import KartpackTestSupport
import Testing

@testable import ConvertEngine

/// The pieces a night leaves in the piece store (issue 37, `LazyPieces`): what the drop order takes instead of a
/// feature's pieces is what observing them gives, a record read with zooms left gives those zooms' pieces back
/// exactly, and the tiles a feature's bounds give hold every piece it has.
@Suite struct LazyPiecesTests {
    /// A feature's pieces over zooms 10–13: polygons (vertices) and dust (none) at random tiles.
    private func pieces(_ rng: inout SplitMix64, feature: Int32) -> [TilePiece] {
        var out: [TilePiece] = []
        for z in 10...13 {
            for _ in 0..<Int(rng.next() % 4) {
                let tile = TileCoordinate(z: z, x: Int(rng.next() % 6) + 100, y: Int(rng.next() % 6) + 200)
                let x = Int32(rng.next() % 4096)
                let geometry: PieceGeometry =
                    rng.next() % 5 == 0
                    ? .dust(SmallFeatureDust(x: x, y: 3, measure: 2, polygon: true, angle: 0))
                    : .polygons(
                        PieceParts(points: [
                            TilePoint(x, 0), TilePoint(x + 90, 0), TilePoint(x + 90, 70), TilePoint(x, 0),
                        ]))
                out.append(TilePiece(layer: 0, feature: feature, tile: tile, geometry: geometry))
            }
        }
        return out
    }

    /// The summary of a feature's pieces, preset, gives the measure observing the archive's stream gives: anchors,
    /// highest zooms and sizes, in both tile orders.
    @Test func aSummaryIsWhatObservingThePiecesGives() {
        var rng = SplitMix64(seed: 11)
        let features = (0..<40).map { pieces(&rng, feature: Int32($0)) }
        for (o, order) in FeatureSummary.orders.enumerated() {
            // The stream: every zoom from the max down, each in tile order, a tile's pieces by feature then as added.
            var stream = features.flatMap { $0 }.enumerated().map { ($0.offset, $0.element) }
            stream.sort { a, b in
                let (ka, kb) = (order.sortKey(a.1.tile) ?? .max, order.sortKey(b.1.tile) ?? .max)
                if a.1.tile.z != b.1.tile.z { return a.1.tile.z > b.1.tile.z }
                return (ka, a.1.feature, a.0) < (kb, b.1.feature, b.0)
            }
            var observed = FeatureMeasure(counts: [features.count], extent: 4096, withSizes: true)
            observed.observe(stream.map(\.1))
            var preset = FeatureMeasure(counts: [features.count], extent: 4096, withSizes: true)
            for (f, p) in features.enumerated() {
                preset.preset(layer: 0, feature: f, FeatureSummary.of(p, order: order, extent: 4096))
            }
            // Observing the stream after presetting changes nothing.
            preset.observe(stream.map(\.1))
            for f in features.indices {
                #expect(preset.summary(layer: 0, feature: f) == observed.summary(layer: 0, feature: f), "order \(o)")
            }
            #expect(preset.isComplete == observed.isComplete)
        }
    }

    /// A record decoded with zooms left gives the other zooms' pieces, and its left blocks decode to exactly the
    /// pieces a whole decode gives at those zooms; the summaries are stored for both orders.
    @Test func aRecordLeavesZoomsAndGivesThemBack() throws {
        var rng = SplitMix64(seed: 5)
        var t = TiledFeature.Tiling(zooms: 10...13)
        t.pieces = pieces(&rng, feature: 0).sorted { $0.tile.z < $1.tile.z }
        t.labelPieces = [TilePiece(tile: TileCoordinate(z: 13, x: 101, y: 203), geometry: .point(TilePoint(5, 6)))]
        let bytes = PieceRecord.encode(t, style: TileDigest(high: 1, low: 2), checked: true)
        let whole = try #require(PieceRecord.decode(bytes, from: 8, leaving: ZoomSet()))
        let left = try #require(PieceRecord.decode(bytes, from: 8, leaving: ZoomSet([12, 13])))
        #expect(left.tiling.pieces.allSatisfy { $0.tile.z < 12 } && left.tiling.labelPieces.isEmpty)
        var back: [TilePiece] = []
        var labels: [TilePiece] = []
        for block in left.left.blocks {
            let p = try #require(PieceRecord.pieces(of: block, in: bytes))
            if block.label { labels += p } else { back += p }
            #expect(ReadBack.tiles(of: block, in: bytes) == p.map(\.tile))
        }
        let expected = whole.tiling.pieces.filter { $0.tile.z >= 12 }
        #expect(back.map(\.tile) == expected.map(\.tile) && back.map(\.geometry) == expected.map(\.geometry))
        #expect(labels.map(\.geometry) == whole.tiling.labelPieces.map(\.geometry))
        #expect(left.left.summaries.count == 2 && left.left.labelSummaries.count == 2)
        #expect(left.left.summaries[0] == FeatureSummary.of(t.pieces, order: .hilbert, extent: 4096))
        #expect(left.left.summaries[1] == FeatureSummary.of(t.pieces, order: .zxy, extent: 4096))
    }

    @Test func zoomSetsHoldTheirZooms() {
        var s = ZoomSet([3, 14])
        #expect(s.contains(3) && s.contains(14) && !s.contains(4) && !s.contains(-1) && !s.contains(40))
        s.insert(0)
        #expect(s.zooms == [0, 3, 14] && !s.isEmpty && ZoomSet().isEmpty)
    }

    /// Bounds rounded outward to Float hold the Double bounds; a dirty set is met by a range holding one of its tiles.
    @Test func outwardBoundsAndRangesMeetDirtyTiles() {
        let b = Bounds(minX: 1_234_567.891, minY: -7_654_321.123, maxX: 1_234_600.5, maxY: -7_654_000.25)
        let (minX, minY, maxX, maxY) = LazyPieces.outward(b)
        #expect(Double(minX) <= b.minX && Double(minY) <= b.minY && Double(maxX) >= b.maxX && Double(maxY) >= b.maxY)
        let range = TileRange(z: 14, minX: 10, minY: 20, maxX: 12, maxY: 21)
        #expect(LazyPieces.meets(range, [TileCoordinate(z: 14, x: 12, y: 21)]))
        #expect(!LazyPieces.meets(range, [TileCoordinate(z: 14, x: 13, y: 21), TileCoordinate(z: 13, x: 11, y: 20)]))
        let many = Set((0..<50).map { TileCoordinate(z: 14, x: $0, y: 99) })
        #expect(!LazyPieces.meets(range, many))
        #expect(LazyPieces.meets(range, many.union([TileCoordinate(z: 14, x: 11, y: 20)])))
    }
}
