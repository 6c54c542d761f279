import Foundation
import KartpackTestSupport
import Testing

@testable import Shapefile

/// Reader decisions for hostile input that the corpus (SampleData/hostile) exercises end to end, checked here at
/// the reader level with exact geometry.
@Suite struct HostileReaderTests {
    @Test func consecutiveDuplicatePointsAreRemovedFromRings() throws {
        let ring = [0.0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
        var f = ShapefileFixture(shapeType: .polygon, shapes: [.polygon([ring])])
        f.addNames()
        let r = try readFixture(f)
        #expect(r.features.first?.geometry.xy == [0, 0, 0, 1, 1, 1, 1, 0, 0, 0])
        #expect(r.stats.repaired == [.removedDuplicates: 1])
        #expect(r.diagnostics(.removedDuplicates).first?.message.contains("removed 4") == true)
    }

    @Test func consecutiveDuplicatePointsAreRemovedFromLinesAndCollapsedPartsDropped() throws {
        let f = ShapefileFixture(
            shapeType: .polyLine,
            shapes: [.polyLine([[0, 0, 0, 0, 1, 1], [5, 5, 5, 5]]), .polyLine([[2, 2, 2, 2, 2, 2]])])
        let r = try readFixture(f)
        #expect(r.features.count == 1)
        #expect(r.features[0].geometry.kind == .lineString && r.features[0].geometry.xy == [0, 0, 1, 1])
        #expect(r.stats.repaired == [.removedDuplicates: 1, .droppedPart: 1])
        #expect(r.stats.skipped == [.emptyGeometry: 1])
    }

    @Test func collinearRingsAreSliversButSymmetricBowtiesAreNot() throws {
        let sliver = [0.1, 0.1, 0.2, 0.2, 0.3, 0.3, 0.1, 0.1]
        let bowtie = [0.0, 0, 1, 1, 1, 0, 0, 1, 0, 0]  // signed area exactly 0
        let f = ShapefileFixture(
            shapeType: .polygon,
            shapes: [.polygon([square(0, 0, 1), sliver]), .polygon([sliver]), .polygon([bowtie])])
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [1, 3])
        #expect(r.features[0].geometry.partCount == 1)
        #expect(r.stats.repaired[.droppedSliver] == 1)
        #expect(r.stats.skipped == [.emptyGeometry: 1])
        #expect(r.features[1].geometry.pointCount == 5)
    }

    @Test func hugeCoordinatesAreOutOfDomain() throws {
        let f = ShapefileFixture(
            shapeType: .point, shapes: [.point(1, 2), .point(1e308, 2), .point(3, -2e12), .point(1e12, -1e12)])
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [1, 4])
        #expect(r.stats.skipped == [.outOfDomain: 2])
    }

    @Test func recordsOverTheVertexCapAreTooComplex() throws {
        let f = ShapefileFixture(
            shapeType: .polyLine, shapes: [.polyLine([[0, 0, 1, 1, 2, 2]]), .polyLine([[0, 0, 1, 1]])])
        let r = try readFixture(f, options: ShapefileReadOptions(maxVertices: 2))
        #expect(r.features.map(\.id) == [2])
        #expect(r.stats.skipped == [.tooComplex: 1])
        #expect(ShapefileReadOptions().maxVertices == 10_000_000)
    }

    @Test func oneHugeIndexLengthDoesNotRejectTheFile() throws {
        // shapelib refuses the whole file at open for a length past INT_MAX / 2 - 4 words; the reader hides such
        // entries from it and skips only that record.
        var f = ShapefileFixture(
            shapeType: .polygon,
            shapes: [.polygon([square(0, 0, 1)]), .polygon([square(5, 5, 1)]), .polygon([square(9, 9, 1)])])
        f.shxEntryOverrides[1] = (50 + 4 + 64, Int32.max)
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [1, 3])
        #expect(r.stats.skipped == [.badIndexEntry: 1])
        // The same lie on the last record, whose own header and counts fit the file, is read (with a warning).
        f.shxEntryOverrides = [2: (50 + 2 * (4 + 64), Int32.max)]
        let last = try readFixture(f)
        #expect(last.features.map(\.id) == [1, 2, 3])
        #expect(last.sink.count(.recordLengthOverrun) == 1 && last.sink.count(.lengthMismatch) == 1)
    }

    @Test func rejectionsCarryAStableCode() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        f.shpMagic = 7
        let e = try #require(try openError(f))
        #expect(e.code == .notAShapefile && e.description.hasSuffix("[not_a_shapefile]"))
        #expect(ShapefileError.notARegularFile(path: "p", kind: "FIFO").exitCode == .dataError)
        #expect(ShapefileError.fileNotFound(path: "p").exitCode == .noInput)
    }
}
