import GeometryAlgorithms
import Testing
import VectorTile

private func pts(_ coords: [(Int32, Int32)]) -> [TilePoint] { coords.map { TilePoint($0.0, $0.1) } }

@Suite struct MVTGeometryEncoderTests {
    // Worked vectors from MVT 2.1 §4.3.5.
    @Test func specPoint() {
        #expect(MVTGeometryEncoder.points(pts([(25, 17)])) == [9, 50, 34])
    }

    @Test func specMultiPoint() {
        #expect(MVTGeometryEncoder.points(pts([(5, 7), (3, 2)])) == [17, 10, 14, 3, 9])
    }

    @Test func specLine() {
        #expect(MVTGeometryEncoder.lines([pts([(2, 2), (2, 10), (10, 10)])]) == [9, 4, 4, 18, 0, 16, 16, 0])
    }

    @Test func specMultiLine() {
        let parts = [pts([(2, 2), (2, 10), (10, 10)]), pts([(1, 1), (3, 5)])]
        #expect(MVTGeometryEncoder.lines(parts) == [9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8])
    }

    @Test func specPolygon() {
        #expect(
            MVTGeometryEncoder.polygons([[pts([(3, 6), (8, 12), (20, 34)])]]) == [9, 6, 12, 18, 10, 12, 24, 44, 15])
        // Σ(xᵢ·yᵢ₊₁ − xᵢ₊₁·yᵢ) = +38 (area +19): positive, an exterior. (formats.md calls the sum "area +38".)
        #expect(doubledSignedArea(pts([(3, 6), (8, 12), (20, 34)])) == 38)
    }

    /// MVT 2.1 §4.3.5.6 "Example Multi Polygon", stream copied from the spec README.
    static let specMultiPolygonStream: [UInt32] = [
        9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 22, 2, 26, 18, 0, 0, 18, 17, 0, 15, 9, 4, 13, 26, 0, 8, 8, 0, 0, 7, 15,
    ]
    static let specMultiPolygon: [[[TilePoint]]] = [
        [pts([(0, 0), (10, 0), (10, 10), (0, 10)])],
        [pts([(11, 11), (20, 11), (20, 20), (11, 20)]), pts([(13, 13), (13, 17), (17, 17), (17, 13)])],
    ]

    @Test func specMultiPolygonWithHole() {
        #expect(Self.specMultiPolygonStream.count == 33)
        #expect(MVTGeometryEncoder.polygons(Self.specMultiPolygon) == Self.specMultiPolygonStream)
        // With closing duplicates the stream is the same (they are removed).
        let closed = Self.specMultiPolygon.map { $0.map { $0 + [$0[0]] } }
        #expect(MVTGeometryEncoder.polygons(closed) == Self.specMultiPolygonStream)
    }

    @Test func cursorCarriesAcrossPartsAndStartsAtZeroPerCall() {
        let a = MVTGeometryEncoder.points(pts([(100, 100)]))
        let b = MVTGeometryEncoder.points(pts([(100, 100)]))
        #expect(a == b)
        #expect(a == [9, 200, 200])
    }

    @Test func linesDropDuplicatesAndDegenerateParts() {
        // Consecutive duplicates go; a part collapsing to one point is dropped.
        let out = MVTGeometryEncoder.lines([pts([(2, 2), (2, 2), (2, 10), (2, 10), (10, 10)]), pts([(5, 5), (5, 5)])])
        #expect(out == [9, 4, 4, 18, 0, 16, 16, 0])
        #expect(MVTGeometryEncoder.lines([pts([(1, 1)])]).isEmpty)
        #expect(MVTGeometryEncoder.points([]).isEmpty)
    }

    @Test func polygonsDropDegenerateRingsAndHolesOfDroppedExterior() {
        let degenerateExterior = [pts([(0, 0), (5, 5), (0, 0)]), pts([(1, 1), (1, 2), (2, 2)])]
        #expect(MVTGeometryEncoder.polygons([degenerateExterior]).isEmpty)
        let degenerateHole = [pts([(0, 0), (10, 0), (10, 10)]), pts([(1, 1), (1, 1), (1, 1)])]
        #expect(MVTGeometryEncoder.polygons([degenerateHole]) == MVTGeometryEncoder.polygons([[degenerateHole[0]]]))
    }

    @Test func commandIntegers() {
        #expect(MVTCommand.moveTo.integer(count: 1) == 9)
        #expect(MVTCommand.lineTo.integer(count: 3) == 26)
        #expect(MVTCommand.closePath.integer(count: 1) == 15)
        #expect(MVTCommand.maxCount == 536_870_911)
    }
}
