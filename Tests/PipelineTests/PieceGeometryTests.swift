import GeometryAlgorithms
import KartpackCore
import Testing
import VectorTile

@testable import ConvertEngine

/// A piece's geometry (`PieceGeometry`) is held as the MVT encoder writes it: its commands are the encoder's, and
/// its rings are what a reader reads back, so the passes see what they saw when pieces were commands.
@Suite struct PieceGeometryTests {
    private func p(_ x: Int32, _ y: Int32) -> TilePoint { TilePoint(x, y) }

    @Test func polygonsAreCleanedAndGroupedAsAReaderReadsThem() {
        let exterior = [p(0, 0), p(10, 0), p(10, 0), p(10, 10), p(0, 10), p(0, 0)]
        let hole = [p(2, 2), p(2, 4), p(4, 4), p(4, 2)]
        // A flat "hole" (zero area) and a two-point ring (dropped).
        let flat = [p(5, 5), p(6, 6), p(7, 7)]
        let tiny = [p(1, 1), p(2, 2), p(1, 1)]
        // A polygon whose exterior collapses takes its hole with it; a flat exterior after it joins the one before.
        let collapsed = [[p(20, 20), p(20, 20)], [p(21, 21), p(21, 22), p(22, 22)]]
        let flatExterior = [[p(30, 30), p(31, 31), p(32, 32)]]
        let raw = [[exterior, hole, flat, tiny], collapsed, flatExterior]
        let g = PieceGeometry(polygons: raw)
        #expect(g.commands == MVTGeometryEncoder.polygons(raw))
        let cleaned: [TilePoint] = [p(0, 0), p(10, 0), p(10, 10), p(0, 10)]
        let expected: [[[TilePoint]]] = [[cleaned, hole, flat, flatExterior[0]]]
        #expect(g.polygons == expected)
        #expect(g.packedCommandSize == ProtobufWriter.packedSize(g.commands))
        #expect(g.commandCount == g.commands.count)
        #expect(PieceGeometry(polygons: g.polygons) == g, "canonical: made again from its rings, the same")
        #expect(PieceGeometry(polygons: [[tiny]]).isEmpty)
    }

    @Test func linesAndPointsAreWrittenAsTheEncoderWritesThem() {
        let parts = [[p(0, 0), p(0, 0), p(5, 5)], [p(1, 1), p(1, 1)], [p(9, 9), p(8, 8), p(9, 9)]]
        let lines = PieceGeometry(lines: parts)
        #expect(lines.commands == MVTGeometryEncoder.lines(parts))
        #expect(lines.lines == [[p(0, 0), p(5, 5)], [p(9, 9), p(8, 8), p(9, 9)]])
        let points = PieceGeometry.points([p(3, 4), p(3, 4), p(-7, 1)])
        #expect(points.commands == MVTGeometryEncoder.points([p(3, 4), p(3, 4), p(-7, 1)]))
        #expect(points.firstPoint == p(3, 4))
        let one = PieceGeometry(lines: [[p(1, 2), p(3, 4)]])
        guard case .lines(let compact) = one else { Issue.record("not lines"); return }
        #expect(compact.counts.isEmpty, "one part needs no part counts")
    }

    @Test func dustKeepsTheWordsItWasSpilledAs() throws {
        let d = SmallFeatureDust(x: -3, y: 70, measure: 1.2345, polygon: false, angle: 2.5)
        #expect(PieceGeometry.dust(d).commands.count == 6)
        #expect(d.measure == Double(UInt32((1.2345 * 256).rounded())) / 256)
        var encoder = PieceEncoder()
        let tile = TileCoordinate(z: 7, x: 3, y: 4)
        let pieces = [
            PieceGeometry.dust(d),
            PieceGeometry(polygons: [[[p(0, 0), p(9, 0), p(9, 9)], [p(1, 1), p(1, 2), p(2, 2)]]]),
            .points([p(Int32.min, Int32.max)]),
        ].enumerated().map { i, g in
            TilePiece(key: 1, layer: 0, feature: Int32(i), tile: tile, geometry: g)
        }
        for piece in pieces { encoder.append(piece) }
        var decoder = PieceDecoder(bytes: encoder.bytes, zoom: 7)
        for piece in pieces {
            #expect(try decoder.next()?.geometry == piece.geometry)
        }
        #expect(try decoder.next() == nil)
    }

    /// A single point is held inline (`point`): the same geometry as a one-point `points` — equal, the same MVT
    /// commands, the same spilled bytes — and read back from a spill inline, while multipoints stay arrays.
    @Test func aSinglePointIsInlineAndTheSameAsAOnePointMultipoint() throws {
        let q = p(-5, 4_100)
        #expect(PieceGeometry(points: [q]) == .point(q))
        #expect(PieceGeometry.point(q) == .points([q]) && PieceGeometry.points([q]) == .point(q))
        #expect(PieceGeometry.point(q) != .points([q, q]) && PieceGeometry.point(q) != .point(p(-5, 4_101)))
        #expect(PieceGeometry.point(q) != .points([]) && PieceGeometry.points([]) == PieceGeometry(points: []))
        guard case .points(let two) = PieceGeometry(points: [q, q]) else {
            Issue.record("a multipoint of two is an array")
            return
        }
        #expect(two == [q, q])
        let one = PieceGeometry.point(q)
        #expect(one.commands == MVTGeometryEncoder.points([q]) && one.commands == PieceGeometry.points([q]).commands)
        #expect(one.type == .point && !one.isEmpty && one.firstPoint == q && one.heapBytes == 0)
        #expect(one.packedCommandSize == ProtobufWriter.packedSize(one.commands))

        let tile = TileCoordinate(z: 5, x: 1, y: 2)
        func spilled(_ g: PieceGeometry) -> [UInt8] {
            var encoder = PieceEncoder()
            encoder.append(TilePiece(key: 3, layer: 1, feature: 2, tile: tile, geometry: g))
            return encoder.bytes
        }
        #expect(spilled(.point(q)) == spilled(.points([q])))
        for g in [PieceGeometry.point(q), .points([q]), .points([q, p(0, 0)]), .point(p(Int32.min, Int32.max))] {
            var decoder = PieceDecoder(bytes: spilled(g), zoom: 5)
            let back = try #require(try decoder.next()).geometry
            #expect(back == g)
            if case .points(let ps) = back { #expect(ps.count != 1, "one point is read back inline") }
        }
    }
}
