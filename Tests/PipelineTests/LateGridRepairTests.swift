import GeometryAlgorithms
import GeometryOps
import KartpackCore
import KartpackTestSupport
import Testing
import VectorTile

@testable import ConvertEngine

/// The grid repair after the shared-border pass (LateGridRepair.swift): pieces `TileStage` left broken come out
/// valid, the spill keeps their mark, and the islets the repair splits off go as the pass's collapsed rings do.
@Suite struct LateGridRepairTests {
    let pass = SharedBorderPass(tolerance: 8, extent: 4096, buffer: 80)
    let tile = TileCoordinate(z: 6, x: 1, y: 1)
    static let square = [TilePoint(0, 0), TilePoint(1000, 0), TilePoint(1000, 1000), TilePoint(0, 1000)]
    /// A sliver 12 units long, 2 wide, hanging off the square's east side at (1000, 500).
    static let loop = [TilePoint(1000, 500), TilePoint(1010, 498), TilePoint(1012, 502)]

    @Test func aPieceCrossingItselfIsValidAfterThePass() throws {
        // A bow tie: the ring crosses itself near (667, 667); no simplification or cut removes that.
        let bowTie = [TilePoint(0, 0), TilePoint(1000, 1000), TilePoint(1000, 0), TilePoint(0, 2000)]
        let far = [TilePoint(2000, 0), TilePoint(3000, 0), TilePoint(3000, 1000), TilePoint(2000, 1000)]
        let pieces = [
            TilePiece(
                layer: 0, feature: 0, tile: tile, geometry: PieceGeometry(unrepaired: [[bowTie]]), needsRepair: true),
            TilePiece(layer: 0, feature: 1, tile: tile, geometry: PieceGeometry(polygons: [[far]])),
        ]
        #expect(!Quantizer.isValidOnGrid(pieces[0].geometry.polygons))
        let result = try pass.simplify(0..<2, pieces: pieces)
        #expect(result.lateRepairs == 1)
        #expect(result.fallbacks == 0)
        let repaired = try #require(result.geometries.first { $0.index == 0 }?.geometry)
        // Two triangles touching at one point: valid in OGC, as GEOS's repair before the pass made them.
        #expect(repaired.polygons.count == 2)
        #expect(try Self.isValid(repaired.polygons))
    }

    @Test func theTileStageLeavesACrossingPieceForThePassWithSharedBorders() throws {
        let parameters = TilingParameters(
            minZoom: 0, maxZoom: 14, extent: 4096, buffer: 80, simplify: 1, sharedBorders: true)
        let stage = TileStage(engine: GeometryEngine(), parameters: parameters)
        // Its edges (0, 0)–(1000, 1000) and (1000, 0)–(0, 2000) cross.
        let crossing = Geometry.polygons([[[0, 0, 1000, 1000, 1000, 0, 0, 2000, 0, 0]]])
        let q = Quantizer().quantizePolygons(crossing)
        #expect(q.needsRepair)
        var repairs = Set<ReasonCode>()
        let left = try #require(
            try stage.repairPolygons(
                q, full: crossing, tolerance: 0, unit: 1, quantizer: Quantizer(), defersToPass: true,
                repairs: &repairs))
        #expect(left.needsRepair)
        #expect(repairs == [.gridRepair])
        // Without shared borders, GEOS repairs it here as before.
        var now = Set<ReasonCode>()
        let repaired = try #require(
            try stage.repairPolygons(q, full: crossing, tolerance: 0, unit: 1, quantizer: Quantizer(), repairs: &now))
        #expect(try Self.isValid(repaired.polygons))
        // The pass's late repair gives the same polygons from the unrepaired rings (nothing to simplify away).
        let late = try SharedBorderPass.lateRepaired(left.polygons) { GeometryEngine() }
        #expect(late == repaired.polygons)
    }

    @Test func theSpillKeepsTheMark() throws {
        var encoder = PieceEncoder()
        let geometry = PieceGeometry(unrepaired: [[Self.square]])
        for (i, late) in [true, false, true].enumerated() {
            encoder.append(TilePiece(key: 1, feature: Int32(i), tile: tile, geometry: geometry, needsRepair: late))
        }
        var decoder = PieceDecoder(bytes: encoder.bytes, zoom: tile.z)
        var marks: [Bool] = []
        while let p = try decoder.next() {
            marks.append(p.needsRepair)
            #expect(p.geometry == geometry)
        }
        #expect(marks == [true, false, true])
    }

    @Test func anUnrepairedPieceKeepsItsRings() {
        // A hole listed with positive area stays a hole (`init(polygons:)` would make it an exterior).
        let hole = [TilePoint(10, 10), TilePoint(20, 10), TilePoint(20, 20), TilePoint(10, 20)]
        let g = PieceGeometry(unrepaired: [[Self.square, hole]])
        #expect(g.polygons == [[Self.square, hole]])
        #expect(PieceGeometry(polygons: [[Self.square, hole]]).polygons.count == 2)
    }

    @Test func collapsedRingsAreThoseWithinTheToleranceOfTheirChord() {
        #expect(SharedBorderPass.collapses(Self.loop, tolerance: 8))
        #expect(!SharedBorderPass.collapses(Self.loop, tolerance: 1))
        #expect(!SharedBorderPass.collapses(Self.square, tolerance: 8))
        #expect(SharedBorderPass.collapses([TilePoint(0, 0), TilePoint(1, 1)], tolerance: 0.5))
    }

    @Test func anIsletSplitOffIsLeftOut() {
        // Cut from the square's ring at (1000, 500): the square touches it there and leaves its box.
        let cut = [
            TilePoint(0, 0), TilePoint(1000, 0), TilePoint(1000, 500), TilePoint(1000, 1000), TilePoint(0, 1000),
        ]
        var polygons = [[[cut], [Self.loop]], [[Self.far]]]
        #expect(pass.leaveOutIslets(&polygons, pieces: [0], keepClear: []) == 1)
        #expect(polygons == [[[cut]], [[Self.far]]])
        // Not a repaired piece: left as it is.
        var other = [[[Self.far]], [[cut], [Self.loop]]]
        #expect(pass.leaveOutIslets(&other, pieces: [0], keepClear: []) == 0)
    }

    @Test func anInletCutOffAsAHoleIsFilled() {
        // The pinched inlet: a hole of the square touching its exterior at (1000, 500).
        let cut = [
            TilePoint(0, 0), TilePoint(1000, 0), TilePoint(1000, 500), TilePoint(1000, 1000), TilePoint(0, 1000),
        ]
        let inlet = [TilePoint(1000, 500), TilePoint(990, 502), TilePoint(988, 498)]
        var polygons = [[[cut, inlet]]]
        #expect(pass.leaveOutIslets(&polygons, pieces: [0], keepClear: []) == 1)
        #expect(polygons == [[[cut]]])
    }

    @Test func anIsletStaysWhenAnotherPieceReachesItsBoxOrItIsAllItsPieceHas() {
        // Another feature's vertex in its box: it may share a border there.
        let neighbour = [TilePoint(1012, 502), TilePoint(1100, 502), TilePoint(1100, 600), TilePoint(1012, 600)]
        var touched = [[[Self.square], [Self.loop]], [[neighbour]]]
        #expect(pass.leaveOutIslets(&touched, pieces: [0], keepClear: []) == 0)
        // A small feature's square drawn there.
        var clear = [[[Self.square], [Self.loop]]]
        let square = TileRect(minX: 1005, minY: 495, maxX: 1008, maxY: 499)
        #expect(pass.leaveOutIslets(&clear, pieces: [0], keepClear: [square]) == 0)
        // The piece's only polygon.
        var alone = [[[Self.loop]]]
        #expect(pass.leaveOutIslets(&alone, pieces: [0], keepClear: []) == 0)
        // Two islets and nothing else: the larger stays.
        let small = [TilePoint(2000, 500), TilePoint(2003, 499), TilePoint(2004, 501)]
        var two = [[[small], [Self.loop]]]
        #expect(pass.leaveOutIslets(&two, pieces: [0], keepClear: []) == 1)
        #expect(two == [[[Self.loop]]])
        // On the clip rectangle's edge (a neighbour tile's copy must match).
        let edge = [TilePoint(4176, 500), TilePoint(4170, 498), TilePoint(4168, 502)]
        var atEdge = [[[Self.square], [edge]]]
        #expect(pass.leaveOutIslets(&atEdge, pieces: [0], keepClear: []) == 0)
    }

    /// Whenever `TileStage.crosses` says rings cross or overlap, GEOS finds them invalid (the grid repair then skips
    /// GEOS's validity test); random rings on a small grid give both answers.
    @Test func ringsThatCrossAreInvalidToGEOS() throws {
        var rng = SplitMix64(seed: 34)
        var crossing = 0, notCrossing = 0
        for _ in 0..<400 {
            let polygons: [[[TilePoint]]] = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                [
                    (0..<Int.random(in: 3...6, using: &rng)).map { _ in
                        TilePoint(Int32.random(in: 0...6, using: &rng), Int32.random(in: 0...6, using: &rng))
                    }
                ]
            }
            let cleaned = TileStage.cleaned(polygons)
            guard !cleaned.isEmpty else { continue }
            if TileStage.crosses(cleaned) {
                crossing += 1
                #expect(try !Self.isValid(cleaned), "\(cleaned)")
            } else {
                notCrossing += 1
            }
        }
        #expect(crossing > 50 && notCrossing > 50)
    }

    /// Valid in OGC (GEOS): rings may touch at a point.
    static func isValid(_ polygons: [[[TilePoint]]]) throws -> Bool {
        let engine = GeometryEngine()
        return try engine.isValid(engine.prepare(TileStage.closed(polygons)))
    }

    static let far = [TilePoint(2000, 0), TilePoint(3000, 0), TilePoint(3000, 1000), TilePoint(2000, 1000)]
}
