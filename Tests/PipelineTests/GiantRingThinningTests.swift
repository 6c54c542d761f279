import Foundation
import GeometryAlgorithms
import GeometryOps
import KartpackCore
import Testing
import VectorTile

@testable import ConvertEngine

/// A giant ring with detail far below the max zoom's grid is thinned once before the descent
/// (GiantRingThinning.swift); anything else is tiled as it is.
@Suite struct GiantRingThinningTests {
    let parameters = TilingParameters(minZoom: 0, maxZoom: 14, extent: 4096, buffer: 80, simplify: 1)

    /// A circle of `n` vertices and radius `r` metres, clockwise on a north-up map.
    static func circle(_ n: Int, radius r: Double) -> Geometry {
        var ring: [Double] = []
        for k in 0..<n {
            let a = -2 * Double.pi * Double(k) / Double(n)
            ring += [2_000_000 + r * cos(a), 8_250_000 + r * sin(a)]
        }
        ring += [ring[0], ring[1]]
        return Geometry.polygons([[ring]])
    }

    @Test func aSawToothFinerThanTheGridIsThinnedWithinOneUnit() throws {
        // 200 000 vertices 0.09 m apart; one z14 unit is about 0.6 m.
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters)
        let ring = GridRepairTests.sawTooth(200_000)
        let thinned = try #require(try stage.thinnedGiantRing(ring, maxZoom: 14))
        #expect(thinned.pointCount <= ring.pointCount / 4)
        #expect(thinned.partCount == 1 && thinned.polygonCount == 1)
        #expect(SegmentSweep.isSimpleRing(thinned.xy[...]) == true)
        // Its vertices are the ring's own, in order.
        let original = Set(stride(from: 0, to: ring.xy.count, by: 2).map { [ring.xy[$0], ring.xy[$0 + 1]] })
        #expect(
            stride(from: 0, to: thinned.xy.count, by: 2).allSatisfy {
                original.contains([thinned.xy[$0], thinned.xy[$0 + 1]])
            })
        // The area is about the same (teeth joined into teeth of the same height).
        let a0 = abs(Self.area(ring.xy))
        #expect(abs(abs(Self.area(thinned.xy)) - a0) < 0.001 * a0)
        // A coarser max zoom thins more.
        let z10 = try #require(try stage.thinnedGiantRing(ring, maxZoom: 10))
        #expect(z10.pointCount < thinned.pointCount)
    }

    @Test func otherGeometryIsLeftAsItIs() throws {
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters)
        // Below the vertex threshold.
        #expect(try stage.thinnedGiantRing(GridRepairTests.sawTooth(40_000), maxZoom: 14) == nil)
        // Giant and dense (0.94 m apart, so the corridor could join 32 vertices at a time), but smooth: no teeth.
        #expect(try stage.thinnedGiantRing(Self.circle(100_000, radius: 15_000), maxZoom: 14) == nil)
        // No simplification asked for.
        var exact = parameters
        exact.simplify = 0
        let noSimplify = TileStage(engine: GeometryEngine(), parameters: exact)
        #expect(try noSimplify.thinnedGiantRing(GridRepairTests.sawTooth(200_000), maxZoom: 14) == nil)
    }

    @Test func theThinnedRingTilesValid() throws {
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters)
        guard case .tiled(let o) = stage.tile(GridRepairTests.sawTooth(200_000), zooms: 14...14) else {
            Issue.record("rejected")
            return
        }
        #expect(o.repairs.contains(.giantRingThinned))
        #expect(!o.repairs.contains(.gridRepairDropped))
        #expect(o.pieces.count >= 4)
        for piece in o.pieces where piece.type == .polygon { try Self.expectValid(piece) }
    }

    /// The polygons of a piece as written are valid (GEOS: polygons may touch at a point, as OGC allows, which the
    /// coarsening's thin teeth do here), exteriors with positive area.
    static func expectValid(_ piece: TilePiece) throws {
        var layer = MVTLayerBuilder(name: "t")
        layer.addFeature(id: 1, type: piece.type, geometry: piece.geometry.commands, properties: Properties())
        let tile = try MVTDecoder().decode(try encodeTile([layer]))
        var polygons: [[[TilePoint]]] = []
        for ring in tile.layers[0].features[0].geometry.parts {
            if doubledSignedArea(ring) > 0 || polygons.isEmpty {
                polygons.append([ring])
            } else {
                polygons[polygons.count - 1].append(ring)
            }
        }
        #expect(doubledSignedArea(polygons[0][0]) > 0, "\(piece.tile)")
        let engine = GeometryEngine()
        #expect(try engine.isValid(engine.prepare(TileStage.closed(polygons))), "\(piece.tile)")
    }

    /// Twice the signed area of a closed ring.
    static func area(_ xy: [Double]) -> Double {
        var s = 0.0
        for i in stride(from: 0, to: xy.count - 2, by: 2) { s += xy[i] * xy[i + 3] - xy[i + 2] * xy[i + 1] }
        return s
    }
}
