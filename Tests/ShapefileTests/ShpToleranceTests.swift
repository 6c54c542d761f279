import Foundation
import KartpackTestSupport
import Testing

@testable import Shapefile

/// `.shp`/`.shx` layouts GDAL reads: a last record whose declared length runs past the end while its counts fit
/// (issue 16), trailing bytes, gaps between records, null records with content.
@Suite struct ShpToleranceTests {
    @Test func lastMultiPointZWhoseLengthRunsPastTheEndIsRead() throws {
        // The file: one MultiPointZ record whose length (in the .shx and the record header) is 8 bytes
        // longer than the file, while the points, Z and M fit.
        var f = ShapefileFixture(
            shapeType: .multiPointZ,
            shapes: [.multiPoint([1, 2, 3, 4, 5, 6], type: .multiPointZ, z: [10, 20, 30], m: [0, 1, 2])])
        f.recordLengthExtraWords = [0: 4]
        let r = try readFixture(f)
        #expect(r.features.count == 1)
        #expect(r.features[0].geometry.xy == [1, 2, 3, 4, 5, 6])
        let w = try #require(r.diagnostics(.recordLengthOverrun).first)
        #expect(w.record == 1 && w.offset == 100)
        #expect(w.message.contains("declares 176 bytes, 8 past the end of the 276-byte file"), "\(w.message)")
        #expect(r.sink.count(.lengthMismatch) == 0, "both lengths agree with each other")
        #expect(r.stats.skipped.isEmpty && r.stats.warnings[.recordLengthOverrun] == 1)
    }

    @Test func lastPolygonOverrunIsReadAndTheOthersAreUntouched() throws {
        var f = ShapefileFixture(
            shapeType: .polygon,
            shapes: [.polygon([square(0, 0, 1)]), .polygon([square(2, 0, 1)]), .polygon([square(4, 0, 1)])])
        f.addNames()
        f.recordLengthExtraWords = [2: 8]
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [1, 2, 3])
        #expect(r.features[2].properties["NAME"] == .string("r3"))
        #expect(r.sink.count(.recordLengthOverrun) == 1)
    }

    @Test func overrunWithoutAnIndexIsReadToo() throws {
        var f = ShapefileFixture(
            shapeType: .polygon, shapes: [.polygon([square(0, 0, 1)]), .polygon([square(2, 0, 1)])])
        f.recordLengthExtraWords = [1: 4]
        f.writeSHX = false
        let r = try readFixture(f)
        #expect(r.features.count == 2 && r.stats.repaired[.rebuiltIndex] == 1)
        #expect(r.sink.count(.recordLengthOverrun) == 1)
    }

    @Test func overrunWhoseCountsDoNotFitStaysRejected() throws {
        // The points themselves are cut: reading on would guess.
        var f = ShapefileFixture(
            shapeType: .polygon, shapes: [.polygon([square(0, 0, 1)]), .polygon([square(2, 0, 1)])])
        let full = f.shpAndSHX().shp.count
        f.truncateSHP = full - 20
        let r = try readFixture(f)
        #expect(r.features.count == 1)
        #expect(r.stats.skipped == [.truncated: 1] && r.sink.count(.recordLengthOverrun) == 0)

        var g = ShapefileFixture(shapeType: .polygon, shapes: [.polygon([square(0, 0, 1)])])
        g.shapes[0].rawContent = Array(g.shpAndSHX().shp[108...])
        g.recordLengthExtraWords = [0: 4]
        g.truncateSHP = 100 + 8 + 44 + 4 + 16 * 3  // two points missing
        let s = try readFixture(g)
        #expect(s.features.isEmpty && s.stats.skipped.values.reduce(0, +) == 1)
        #expect(s.sink.count(.recordLengthOverrun) == 0)
    }

    @Test func unknownTypeOverrunIsNotGuessed() throws {
        var f = ShapefileFixture(shapeType: .polygon, shapes: [.polygon([square(0, 0, 1)])])
        var content = Array(f.shpAndSHX().shp[108...])
        content[0] = 99
        f.shapes[0].rawContent = content
        f.recordLengthExtraWords = [0: 4]
        let r = try readFixture(f)
        #expect(r.features.isEmpty && r.stats.skipped == [.badIndexEntry: 1])
    }

    @Test func trailingBytesAfterTheLastRecordAreWarnedNotRead() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(1, 1), .point(2, 2)])
        f.shpTrailer = Array(repeating: 0xAB, count: 40)
        let r = try readFixture(f)
        #expect(r.features.count == 2)
        #expect(r.sink.count(.unindexedBytes) == 1)
    }

    @Test func nullRecordWithContentIsANullShape() throws {
        var f = ShapefileFixture(shapeType: .polygon, shapes: [.null, .polygon([square(0, 0, 1)])])
        var content: [UInt8] = [0, 0, 0, 0]
        content += [UInt8](repeating: 0x7F, count: 36)  // a box and counts nobody should read
        f.shapes[0].rawContent = content
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [2])
        #expect(r.stats.skipped == [.nullGeometry: 1])
    }

    @Test func requiredLengthsFollowShapelib() {
        func content(_ type: Int32, parts: Int32 = 0, points: Int32 = 0) -> [UInt8] {
            var c = [UInt8](repeating: 0, count: 52)
            c.replaceSubrange(0..<4, with: withUnsafeBytes(of: type.littleEndian) { Array($0) })
            let countAt = type == 8 || type == 18 || type == 28 ? 36 : 40
            if countAt == 40 { c.replaceSubrange(36..<40, with: withUnsafeBytes(of: parts.littleEndian) { Array($0) }) }
            c.replaceSubrange(countAt..<countAt + 4, with: withUnsafeBytes(of: points.littleEndian) { Array($0) })
            return c
        }
        #expect(ShapeContent.requiredLength(content(0)) == 4)
        #expect(ShapeContent.requiredLength(content(1)) == 20)
        #expect(ShapeContent.requiredLength(content(11)) == 28)
        #expect(ShapeContent.requiredLength(content(18, points: 3)) == 40 + 48 + 16 + 24)
        #expect(ShapeContent.requiredLength(content(28, points: 3)) == 40 + 48)
        #expect(ShapeContent.requiredLength(content(5, parts: 2, points: 10)) == 44 + 8 + 160)
        #expect(ShapeContent.requiredLength(content(15, parts: 1, points: 5)) == 44 + 4 + 80 + 16 + 40)
        #expect(ShapeContent.requiredLength(content(5, parts: -1, points: 10)) == nil)
        #expect(ShapeContent.requiredLength(content(99)) == nil)
    }
}
