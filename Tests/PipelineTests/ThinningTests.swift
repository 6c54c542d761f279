import GeometryAlgorithms
import KartpackCore
import KartpackTestSupport
import Testing
import VectorTile

@testable import ConvertEngine

@Suite struct ThinningTests {
    /// The nested grid: at every level k, the features of level ≤ k are exactly one per occupied cell.
    @Test func spacingLevelsKeepOnePerCell() {
        var rng = SplitMix64(seed: 3)
        var anchors: [FeatureAnchor] = []
        for i in 0..<3000 {
            // A dense cluster and a sparse spread.
            let spread: UInt32 = i < 2500 ? 1 << 16 : 1 << 29
            anchors.append(
                FeatureAnchor(
                    x: (1 << 28) + UInt32(rng.next() % UInt64(spread)),
                    y: (1 << 28) + UInt32(rng.next() % UInt64(spread))))
        }
        let importance = (0..<Int32(anchors.count)).map { $0 }.shuffled(using: &rng)
        let levels = FeatureOrder.levels(anchors.map(\.morton), importance: importance)
        for k in [4, 10, 14, 18, 22] {
            let shift = UInt32(FeatureAnchor.bits - k)
            let cells = Set(anchors.map { UInt64($0.x >> shift) << 32 | UInt64($0.y >> shift) })
            #expect(levels.count { Int($0) <= k } == cells.count, "level \(k)")
        }
        // Densest first: on the level-8 grid (cells of 2^22) the cluster is one cell, so it has one point of level
        // ≤ 8 while nearly all of the 500 spread points are alone in theirs.
        #expect(levels[0..<2500].count { $0 <= 8 } == 1)
        #expect(levels[2500...].count { $0 <= 8 } > 450)
    }

    @Test func anchorsTileAndMortonAgree() {
        let a = FeatureAnchor(x: 0b1011 << 26, y: 0b0110 << 26)
        #expect(a.tile(zoom: 4) == UInt64(0b1011) << 32 | 0b0110)
        #expect(a.morton >> 52 == 0b01_10_11_01)
    }

    /// A piece's size counts only what lies inside its tile: a square reaching 50 units into the buffer past the
    /// corner has a quarter inside, a line crossing the tile is its length inside, and a hole is subtracted.
    @Test func pieceSizeIsCountedInsideTheTileOnly() {
        func p(_ x: Int32, _ y: Int32) -> TilePoint { TilePoint(x, y) }
        // Exterior (-50,-50)→(50,-50)→(50,50)→(-50,50), positive area with y down.
        let corner = PieceGeometry(polygons: [[[p(-50, -50), p(50, -50), p(50, 50), p(-50, 50)]]])
        #expect(PieceSize.polygonArea(corner, extent: 4096) == 2500)
        // A 1000-unit square inside with a 100-unit hole (reverse winding).
        let holed = PieceGeometry(polygons: [
            [
                [p(1000, 1000), p(2000, 1000), p(2000, 2000), p(1000, 2000)],
                [p(1500, 1500), p(1500, 1600), p(1600, 1600), p(1600, 1500)],
            ]
        ])
        #expect(PieceSize.polygonArea(holed, extent: 4096) == 1_000_000 - 10_000)
        // A line from the left buffer (-80, 10) across the tile to the right buffer (4176, 10).
        let line = PieceGeometry(lines: [[p(-80, 10), p(4176, 10)]])
        #expect(PieceSize.lineLength(line, extent: 4096) == 4096)
    }

    @Test func priorityParsing() {
        #expect(ThinningOptions.priority("pop")! == ("pop", false))
        #expect(ThinningOptions.priority("scalerank:asc")! == ("scalerank", true))
        #expect(ThinningOptions.priority("a:b:desc")! == ("a:b", false))
        #expect(ThinningOptions.priority(":asc") == nil)
        #expect(ThinningOptions.priority("pop:up") == nil)
    }

    @Test func pieceGeometryKeepsPolygonsAsTheyAreWritten() {
        let outer = [TilePoint(0, 0), TilePoint(100, 0), TilePoint(100, 100), TilePoint(0, 100)]
        let hole = [TilePoint(10, 10), TilePoint(10, 20), TilePoint(20, 20), TilePoint(20, 10)]
        let second = [TilePoint(200, 0), TilePoint(300, 0), TilePoint(300, 50)]
        // Exteriors have positive area in y-down tile coordinates.
        let polygons = [[outer.reversed().map { $0 }, hole.reversed().map { $0 }], [second]]
            .map { rings in
                rings.enumerated().map { i, r in (doubledSignedArea(r) > 0) == (i == 0) ? r : r.reversed() }
            }
        let geometry = PieceGeometry(polygons: polygons)
        #expect(geometry.polygons == polygons)
        #expect(geometry.commands == MVTGeometryEncoder.polygons(polygons))
        let line = PieceGeometry(lines: [[TilePoint(0, 0), TilePoint(3, 4)]])
        #expect(PieceSize.lineLength(line, extent: 4096) == 5)
    }

    @Test func maxPointsPerLayer() {
        var points = OutputLayer(name: "stations")
        points.family = .point
        var stands = OutputLayer(name: "stands")
        stands.family = .polygon
        var labels = OutputLayer(name: "stands_labels")
        labels.family = .point
        var styled = OutputLayer(name: "monuments")
        styled.family = .point
        styled.maxPoints = 4
        let outputs = [points, stands, labels, styled]
        #expect(Converter.maxPoints([], outputs: [points, stands]) == [])
        #expect(Converter.maxPoints([(nil, 10)], outputs: outputs) == [10, nil, nil, 4])
        #expect(Converter.maxPoints([(nil, 10), ("monuments", 2)], outputs: outputs) == [10, nil, nil, 2])
        #expect(Converter.maxPoints([], outputs: outputs) == [nil, nil, nil, 4])
    }

    /// Two squares sharing a wiggly border, simplified in one tile: the shared border is identical in both.
    @Test func sharedBorderPassKeepsTheBorderShared() throws {
        var border: [TilePoint] = []
        for i in 0...40 { border.append(TilePoint(1000 + (i % 2 == 0 ? 0 : 3), Int32(100 + i * 50))) }
        let left = [TilePoint(100, 100)] + border + [TilePoint(100, 2100)]
        let right = border.reversed() + [TilePoint(2000, 100), TilePoint(2000, 2100)]
        func oriented(_ r: [TilePoint]) -> [TilePoint] { doubledSignedArea(r) > 0 ? r : r.reversed() }
        let tile = TileCoordinate(z: 10, x: 1, y: 1)
        let pieces = [left, right].enumerated().map { i, r in
            TilePiece(
                layer: 0, feature: Int32(i),
                tile: tile, geometry: PieceGeometry(polygons: [[oriented(r)]]))
        }
        let result = try SharedBorderPass(tolerance: 8, extent: 4096, buffer: 80).simplify(0..<2, pieces: pieces)
        #expect(result.fallbacks == 0)
        #expect(result.verticesOut < result.verticesIn)
        let out = result.geometries.map {
            Set($0.geometry.polygons[0][0].filter { $0.x > 500 && $0.x < 1500 })
        }
        #expect(out.count == 2 && out[0] == out[1])
    }

    /// A piece whose parts touch at a point on the clip edge (valid in OGC, refused by the strict grid check)
    /// beside a neighbour with a wiggly shared border: the tile is still simplified, not sent back whole.
    @Test func sharedBorderPassSimplifiesATileWithAPieceTouchingItselfAtTheClipEdge() throws {
        var border: [TilePoint] = []
        for i in 0...40 { border.append(TilePoint(1000 + (i % 2 == 0 ? 0 : 3), Int32(100 + i * 50))) }
        let left = [TilePoint(100, 100)] + border + [TilePoint(100, 2100)]
        // Two triangles meeting at (1500, -80), the top edge of the buffered tile.
        let touching = [
            [[TilePoint(1500, -80), TilePoint(1700, -80), TilePoint(1700, -50)]],
            [[TilePoint(1300, -50), TilePoint(1300, -80), TilePoint(1500, -80)]],
        ]
        func oriented(_ r: [TilePoint]) -> [TilePoint] { doubledSignedArea(r) > 0 ? r : r.reversed() }
        #expect(!Quantizer.isValidOnGrid(touching.map { [oriented($0[0])] }))
        let right = border.reversed() + [TilePoint(2000, 100), TilePoint(2000, 2100)]
        let tile = TileCoordinate(z: 10, x: 1, y: 1)
        let polygons = [[[oriented(left)]], [[oriented(right)]], touching.map { [oriented($0[0])] }]
        let pieces = polygons.enumerated().map { i, p in
            TilePiece(
                layer: 0, feature: Int32(i),
                tile: tile, geometry: PieceGeometry(polygons: p))
        }
        let result = try SharedBorderPass(tolerance: 8, extent: 4096, buffer: 80).simplify(0..<3, pieces: pieces)
        #expect(result.fallbacks == 0)
        #expect(result.verticesOut < result.verticesIn)
        // A piece the simplifier made worse than its input still sends the tile back.
        #expect(SharedBorderPass.meetsNoMore(polygons[2], than: polygons[2]))
        let crossing = polygons[2] + [[[TilePoint(0, 0), TilePoint(10, 0), TilePoint(0, 10), TilePoint(10, 10)]]]
        #expect(!SharedBorderPass.meetsNoMore(crossing, than: polygons[2]))
    }

    /// The drop order's measure is complete once every feature was seen at its highest zoom: observing the zooms
    /// below (as a full pass from the max zoom down does) changes nothing, so `EncodePhase` stops there.
    @Test func aMeasureIsCompleteOnceEveryFeatureWasSeenAtItsHighestZoom() {
        let records = [3, 2].map { n in
            RecordTable((0..<n).map { FeatureRecord(id: nil, properties: Properties(), rank: UInt64($0)) })
        }
        func square(_ x: Int32, _ y: Int32, _ side: Int32) -> PieceGeometry {
            PieceGeometry(polygons: [
                [
                    [
                        TilePoint(x, y), TilePoint(x + side, y), TilePoint(x + side, y + side), TilePoint(x, y + side),
                    ]
                ]
            ])
        }
        func piece(_ l: Int32, _ f: Int32, z: Int, x: Int, _ geometry: PieceGeometry) -> TilePiece {
            TilePiece(
                layer: l, feature: f, tile: TileCoordinate(z: z, x: x, y: 1), geometry: geometry)
        }
        // Feature (0, 2) has only an empty piece at zoom 5: it is seen at zoom 4.
        let byZoom: [Int: [TilePiece]] = [
            5: [
                piece(0, 0, z: 5, x: 2, square(10, 10, 100)), piece(0, 1, z: 5, x: 3, square(50, 60, 7)),
                piece(0, 2, z: 5, x: 3, .polygons(PieceParts())), piece(1, 0, z: 5, x: 2, square(0, 0, 300)),
                piece(1, 1, z: 5, x: 3, square(400, 0, 20)), piece(1, 1, z: 5, x: 2, square(4000, 0, 20)),
            ],
            4: [
                piece(0, 0, z: 4, x: 1, square(5, 5, 50)), piece(0, 2, z: 4, x: 1, square(900, 900, 30)),
                piece(1, 1, z: 4, x: 1, square(2000, 0, 10)),
            ],
            3: [piece(0, 1, z: 3, x: 0, square(3000, 30, 4)), piece(1, 0, z: 3, x: 0, square(0, 0, 150))],
        ]
        var full = FeatureMeasure(records: records, extent: 4096, withSizes: true)
        var early = full
        for z in [5, 4, 3] {
            full.observe(byZoom[z]!)
            if !early.isComplete { early.observe(byZoom[z]!) }
            #expect(early.isComplete == (z <= 4), "zoom \(z)")
        }
        #expect(full.isComplete)
        #expect(early.topZoom == [[5, 5, 4], [5, 5]])
        #expect(early.topZoom == full.topZoom && early.anchors == full.anchors && early.sizes == full.sizes)
        // Both zoom-5 pieces of (1, 1) count, its zoom-4 piece does not.
        #expect(early.sizes.map { $0[1][1] / $0[0][1] } == 2.0 * 20 * 20 / 49)
    }
}
