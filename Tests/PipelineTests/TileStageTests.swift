import Foundation
import GeometryAlgorithms
import GeometryOps
import KartpackCore
import Testing
import VectorTile

@testable import ConvertEngine

@Suite struct TileStageTests {
    let parameters = TilingParameters(minZoom: 0, maxZoom: 14, extent: 4096, buffer: 80, simplify: 1)

    /// The tiling of `g`, or a recorded issue when it was rejected.
    private func tile(
        _ g: Geometry, zooms: ClosedRange<Int>, parameters: TilingParameters? = nil
    ) -> TiledFeature.Tiling {
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters ?? self.parameters)
        switch stage.tile(g, zooms: zooms) {
        case .tiled(let t): return t
        case .rejected(let issue):
            Issue.record("rejected: \(issue.message)")
            return TiledFeature.Tiling(zooms: zooms)
        }
    }

    private func square(_ cx: Double, _ cy: Double, _ half: Double) -> Geometry {
        Geometry.polygons([
            [
                [
                    cx - half, cy - half, cx - half, cy + half, cx + half, cy + half, cx + half, cy - half, cx - half,
                    cy - half,
                ]
            ]
        ])
    }

    @Test func polygonIsCutIntoEveryTouchedTileAtEveryZoom() {
        // 10 km square around Stockholm-ish metres.
        let g = square(2_000_000, 8_250_000, 5_000)
        let o = tile(g, zooms: 8...12)
        for z in 8...12 {
            let expected = SphericalMercator.tileRange(
                covering: Bounds(minX: 1_995_000, minY: 8_245_000, maxX: 2_005_000, maxY: 8_255_000), zoom: z)
            let got = Set(o.pieces.filter { $0.tile.z == z }.map(\.tile))
            #expect(Set(expected.map { Array($0) } ?? []).isSubset(of: got), "zoom \(z)")
        }
        #expect(o.pieces.allSatisfy { $0.type == .polygon })
    }

    @Test func quantizedPolygonAreaMatchesTheSourceAtMaxZoom() throws {
        let g = square(2_000_000, 8_250_000, 1_500)
        let o = tile(
            g, zooms: 14...14,
            parameters: TilingParameters(minZoom: 0, maxZoom: 14, extent: 4096, buffer: 0, simplify: 1))
        var area = 0.0
        for p in o.pieces {
            var layer = MVTLayerBuilder(name: "t")
            layer.addFeature(id: 1, type: p.type, geometry: p.geometry.commands, properties: Properties())
            let tile = try MVTDecoder().decode(try encodeTile([layer]))
            let f = tile.layers[0].features[0]
            for ring in f.geometry.parts {
                area += Double(doubledSignedArea(ring)) / 2
            }
        }
        let unit = SphericalMercator.tileSize(zoom: 14) / 4096
        let expected = 3000.0 * 3000.0 / (unit * unit)
        #expect(abs(area - expected) / expected < 0.01)
    }

    @Test func tinyPolygonStillAppearsAtMaxZoom() {
        let o = tile(square(2_000_000, 8_250_000, 0.05), zooms: 10...14)
        #expect(o.pieces.contains { $0.tile.z == 14 })
        #expect(o.repairs.contains(.tinyFeatureKept))
        #expect(o.collapsedAt.contains(10))
    }

    @Test func smallFeatureDustIsNotCollapsed() {
        // A 40 m square: below 2 x 2 tile units up to z8 (38 m a unit), so dust there, drawn or not by the
        // small-feature reduction; its class must count at those zooms (classes_by_zoom), not be collapsed.
        var p = parameters
        p.smallFeatures = true
        let o = tile(square(2_000_000, 8_250_000, 20), zooms: 6...12, parameters: p)
        for z in 6...8 {
            let here = o.pieces.filter { $0.tile.z == z }
            #expect(!here.isEmpty && here.allSatisfy { $0.type == .unknown }, "zoom \(z)")
        }
        #expect(o.pieces.contains { $0.tile.z == 12 && $0.type == .polygon })
        #expect(o.collapsedAt.isEmpty, "\(o.collapsedAt)")
        // Without small features the grid rounds it away at the lowest zooms: collapsed there.
        let off = tile(square(2_000_000, 8_250_000, 20), zooms: 6...12)
        #expect(off.collapsedAt.contains(6), "\(off.collapsedAt)")
    }

    @Test func bowtieIsRepairedNotDropped() {
        let c = 2_000_000.0, d = 8_250_000.0
        let g = Geometry.polygons([[[c, d, c + 1000, d + 1000, c + 1000, d, c, d + 1000, c, d]]])
        let o = tile(g, zooms: 14...14)
        #expect(o.repairs.contains(.makeValid))
        #expect(!o.pieces.isEmpty)
    }

    @Test func pointsNearATileEdgeGoIntoBothBufferedTiles() {
        let b = SphericalMercator.bounds(of: TileCoordinate(z: 14, x: 9000, y: 4000))
        let o = tile(.point(x: b.maxX - 0.01, y: (b.minY + b.maxY) / 2), zooms: 14...14)
        #expect(
            Set(o.pieces.map(\.tile)) == [
                TileCoordinate(z: 14, x: 9000, y: 4000), TileCoordinate(z: 14, x: 9001, y: 4000),
            ])
    }

    @Test func antimeridianLineIsTiledOnBothSides() throws {
        let h = SphericalMercator.halfWorld
        let g = Geometry.lines([[h - 100_000, 0, -h + 100_000, 10_000]])
        let copies = try #require(AntimeridianStage.unwrap(g))
        #expect(copies.count == 2)
        var tiles = Set<TileCoordinate>()
        for c in copies { tiles.formUnion(tile(c, zooms: 2...2).pieces.map(\.tile)) }
        #expect(tiles.contains { $0.x == 0 })
        #expect(tiles.contains { $0.x == 3 })
    }

    @Test func poleRingIsNotUnwrapped() {
        let h = SphericalMercator.halfWorld
        // Antarctica-like: runs east along the coast, then back west along the bottom edge via a jump at ±180.
        let g = Geometry.polygons([[[-h, -1e7, 0, -1.1e7, h, -1e7, h, -h, -h, -h, -h, -1e7]]])
        #expect(AntimeridianStage.unwrap(g) == nil)
    }

    @Test func featureRanksAreStableAndSpread() {
        #expect(FeatureRank.rank(layer: 0, feature: 1) == FeatureRank.rank(layer: 0, feature: 1))
        #expect(FeatureRank.rank(layer: 0, feature: 1) != FeatureRank.rank(layer: 1, feature: 1))
        let below = (0..<10_000).filter { FeatureRank.rank(layer: 0, feature: $0) < UInt64.max / 2 }.count
        #expect(abs(below - 5_000) < 300)
    }
}
