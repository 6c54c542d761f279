import Foundation
import GeometryAlgorithms
import GeometryOps
import KartpackCore
import Testing
import VectorTile

@testable import Pipeline

/// The grid repair's bounded paths (GridRepair.swift) through the tile stage: a dense saw-tooth cut by tile edges
/// into thousands of sub-grid slivers is redrawn on blocks, valid, and never handed to GEOS whole.
@Suite struct GridRepairTests {
    let parameters = TilingParameters(minZoom: 0, maxZoom: 14, extent: 4096, buffer: 80, simplify: 1)

    /// Web Mercator metres: `n` vertices over 300 m (teeth 0.02 grid units apart at zoom 14), teeth from 2 km to
    /// 10 km above the base, so tile edges cut them into slivers. Clockwise on a north-up map.
    static func sawTooth(_ n: Int) -> Geometry {
        let x0 = 2_000_000.0
        let y0 = 8_250_000.0
        let m = n - 3
        var ring: [Double] = []
        for i in 0..<m { ring += [x0 + 300 * Double(i) / Double(m - 1), y0 + (i % 2 == 0 ? 10_000 : 2_000)] }
        ring += [x0 + 300, y0, x0, y0, ring[0], ring[1]]
        return Geometry.polygons([[ring]])
    }

    /// The rings of a polygon piece as written: no two edges of any rings meet, exteriors have positive area.
    static func expectValid(_ piece: TilePiece) throws {
        var layer = MVTLayerBuilder(name: "t")
        layer.addFeature(id: 1, type: piece.type, geometry: piece.commands, properties: Properties())
        let tile = try MVTDecoder().decode(try encodeTile([layer]))
        let rings = tile.layers[0].features[0].geometry.parts
        #expect(rings.contains { doubledSignedArea($0) > 0 }, "\(piece.tile)")
        let vertices = rings.map { $0.map { SegmentSweep.Vertex(x: Int64($0.x), y: Int64($0.y)) } }
        #expect(SegmentSweep.edgesAreDisjoint(vertices) == true, "\(piece.tile)")
    }

    @Test func sliversOfADenseSawToothAreRedrawnOnBlocks() throws {
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters)
        guard case .tiled(let o) = stage.tile(Self.sawTooth(40_000), zooms: 14...14) else {
            Issue.record("rejected")
            return
        }
        #expect(o.repairs.contains("block_grid_repair"), "\(o.repairs)")
        #expect(!o.repairs.contains("grid_repair_dropped"))
        #expect(o.pieces.count >= 4)
        for piece in o.pieces where piece.type == .polygon { try Self.expectValid(piece) }
        // The same bytes a second time (no hidden state).
        guard case .tiled(let again) = stage.tile(Self.sawTooth(40_000), zooms: 14...14) else { return }
        #expect(again.pieces.map(\.commands) == o.pieces.map(\.commands))
    }
}
