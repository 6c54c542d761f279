import Foundation
import GeometryAlgorithms
import GeometryOps
import KartpackCore
import Testing
import VectorTile

@testable import ConvertEngine

/// The grid repair's bounded paths (GridRepair.swift) through the tile stage: a dense saw-tooth cut by tile edges
/// into thousands of sub-grid slivers is redrawn on blocks, valid, and never handed to GEOS whole.
@Suite struct GridRepairTests {
    let parameters = TilingParameters(minZoom: 0, maxZoom: 14, extent: 4096, buffer: 80, simplify: 1)

    /// Web Mercator metres: `n` vertices over 18 km (0.45 m apart, as in the 125k saw-tooth of the CLI test), teeth
    /// from 2 km to 10 km above the base, so tile edges cut them into slivers. Clockwise on a north-up map.
    static func sawTooth(_ n: Int) -> Geometry {
        let x0 = 2_000_000.0
        let y0 = 8_250_000.0
        let m = n - 3
        var ring: [Double] = []
        for i in 0..<m { ring += [x0 + 18_000 * Double(i) / Double(m - 1), y0 + (i % 2 == 0 ? 10_000 : 2_000)] }
        ring += [x0 + 18_000, y0, x0, y0, ring[0], ring[1]]
        return Geometry.polygons([[ring]])
    }

    /// `expectValid` of polygons encoded as one piece of a z14 tile.
    static func expectValid(polygons: [[[TilePoint]]]) throws {
        try expectValid(TilePiece(tile: TileCoordinate(z: 14, x: 0, y: 0), geometry: PieceGeometry(polygons: polygons)))
    }

    /// The rings of a polygon piece as written: no two edges of any rings meet, exteriors have positive area.
    static func expectValid(_ piece: TilePiece) throws {
        var layer = MVTLayerBuilder(name: "t")
        layer.addFeature(id: 1, type: piece.type, geometry: piece.geometry.commands, properties: Properties())
        let tile = try MVTDecoder().decode(try encodeTile([layer]))
        let rings = tile.layers[0].features[0].geometry.parts
        #expect(rings.contains { doubledSignedArea($0) > 0 }, "\(piece.tile)")
        let vertices = rings.map { $0.map { SegmentSweep.Vertex(x: Int64($0.x), y: Int64($0.y)) } }
        #expect(SegmentSweep.edgesAreDisjoint(vertices) == true, "\(piece.tile)")
    }

    /// 3 000 tall slivers 0.3 units wide, 0.5 apart, in tile coordinates: rounding makes them touch and overlap.
    static func slivers() -> Geometry {
        var polygons: [[[Double]]] = []
        for i in 0..<3_000 {
            let x = 0.5 * Double(i) + 0.35
            polygons.append([[x, 10, x + 0.3, 10, x + 0.3, 4_000, x, 4_000, x, 10]])
        }
        return Geometry.polygons(polygons)
    }

    @Test func overlappingSliversComeOutValid() throws {
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters)
        let full = Self.slivers()
        let q = Quantizer().quantizePolygons(full)
        #expect(q.needsRepair)
        var repairs = Set<ReasonCode>()
        let blocks = try #require(try stage.blockCoverage(full, quantizer: Quantizer(), template: q, repairs: &repairs))
        #expect(repairs == [.blockGridRepair])
        // About 60 % covered: one block row band, valid.
        try Self.expectValid(polygons: blocks.polygons)
        // The whole repair, whichever step it takes, gives valid polygons, the same each time.
        var r1 = Set<ReasonCode>()
        let out = try stage.repairPolygons(q, full: full, tolerance: 0, unit: 1, quantizer: Quantizer(), repairs: &r1)
        if let out {
            try Self.expectValid(polygons: out.polygons)
        }
        var r2 = Set<ReasonCode>()
        let again = try stage.repairPolygons(q, full: full, tolerance: 0, unit: 1, quantizer: Quantizer(), repairs: &r2)
        #expect(again?.polygons == out?.polygons)
        #expect(r1 == r2)
        #expect(!r1.contains(.gridRepairDropped))
    }

    @Test func aDenseSawToothCutByTileEdgesIsValidEverywhere() throws {
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters)
        guard case .tiled(let o) = stage.tile(Self.sawTooth(40_000), zooms: 11...14) else {
            Issue.record("rejected")
            return
        }
        #expect(!o.repairs.contains(.gridRepairDropped))
        #expect(o.pieces.count >= 4)
        for piece in o.pieces where piece.type == .polygon { try Self.expectValid(piece) }
    }
}
