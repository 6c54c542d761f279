import Foundation
import KartpackCore
import KartpackTestSupport
import Testing

@testable import Shapefile

/// `.dbf` layouts GDAL reads and Kartpack reads too, with a warning, because nothing has to be guessed
/// (issue 16), and the rejections that remain where reading on would guess.
@Suite struct DBFToleranceTests {
    func points(_ n: Int) -> ShapefileFixture {
        var f = ShapefileFixture(shapeType: .point, shapes: (0..<n).map { .point(Double($0), 0) })
        f.fields = [.init("NAME", "C", width: 6), .init("N", "N", width: 4)]
        f.rows = (0..<n).map { [Array("r\($0 + 1)".utf8), Array("\($0 + 1)".utf8)] }
        return f
    }

    func names(_ r: ReadResult) -> [PropertyValue?] { r.features.map { $0.properties["NAME"] } }

    @Test func otherByteInsteadOfTheTerminatorIsRead() throws {
        for byte: UInt8 in [0x00, 0x20, 0x1A] {
            var f = points(3)
            f.dbfTerminator = byte
            let r = try readFixture(f)
            #expect(names(r) == [.string("r1"), .string("r2"), .string("r3")])
            #expect(r.features.map { $0.properties["N"] } == [.int(1), .int(2), .int(3)])
            let w = try #require(r.diagnostics(.dbfNoTerminator).first)
            #expect(w.message.contains("0x\(String(byte, radix: 16)), not the 0x0D terminator"), "\(w.message)")
            #expect(w.file == "layer.dbf")
        }
    }

    @Test func headerOfExactlyTheDescriptorsWithoutTerminatorIsRead() throws {
        var f = points(2)
        f.dbfTerminator = nil
        f.dbfHeaderLengthOverride = UInt16(32 + 32 * 2)
        let r = try readFixture(f)
        #expect(names(r) == [.string("r1"), .string("r2")])
        #expect(r.diagnostics(.dbfNoTerminator).first?.message.contains("there is no 0x0D terminator") == true)
    }

    /// PostGIS's loader tests: a `.dbf` without fields whose 33-byte header ends in 0x0A (issue 36).
    @Test func noFieldsWithAnotherTerminatorByteIsRead() throws {
        for rows in [0, 2] {
            var f = ShapefileFixture(shapeType: .point, shapes: [.point(1, 1), .point(2, 2)])
            f.fields = []
            f.rows = Array(repeating: [], count: rows)
            f.dbfTerminator = 0x0A
            let r = try readFixture(f)
            #expect(r.features.count == 2 && r.schema.fields.isEmpty)
            #expect(r.sink.count(.dbfNoTerminator) == 1)
            #expect(r.sink.count(.missingAttributes) == (rows == 0 ? 1 : 0))
        }
        // Two bytes where the terminator belongs say nothing: still refused.
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(1, 1)])
        f.fields = []
        f.rows = [[]]
        f.dbfTerminator = nil
        f.dbfHeaderLengthOverride = 34
        f.dbfPadHeader = true
        #expect(try openError(f)?.code == .badDbfHeader)
    }

    /// mazovia.dbf (infused/dbf): 0x00 instead of the space deletion flag, while the file size proves the layout
    /// (issue 36); without that proof it stays refused.
    @Test func nulDeletionFlagProvenBySizeIsRead() throws {
        var f = points(3)
        f.dbfLiveFlag = 0x00
        f.deletedRows = [1]
        let r = try readFixture(f)
        #expect(names(r) == [.string("r1"), .string("r3")])
        #expect(r.stats.skipped[.deletedInSource] == 1)
        #expect(r.sink.count(.dbfNulDeletionFlag) == 1)
        f.dbfTrailer = [0x20, 0x20, 0x20]
        #expect(try openError(f)?.description.contains("does not start with a deletion flag") == true)
    }

    @Test func missingTerminatorWithAHeaderLengthThatDisagreesIsRejected() throws {
        var f = points(2)
        f.dbfTerminator = nil
        f.dbfHeaderLengthOverride = UInt16(32 + 32 * 2 + 9)
        let e = try openError(f)
        #expect(e?.code == .badDbfHeader)
        #expect(e?.description.contains("does not match a whole number of field descriptors") == true)
    }

    @Test func extraByteAfterTheTerminatorProvenBySizeIsRead() throws {
        // NetTopologySuite.IO.Esri#65: 0x0D followed by 0x00, counted in the header length.
        var f = points(3)
        f.dbfHeaderLengthOverride = UInt16(32 + 32 * 2 + 2)
        let r = try readFixture(f)
        #expect(names(r) == [.string("r1"), .string("r2"), .string("r3")])
        #expect(r.sink.count(.dbfHeaderPadding) == 1)
    }

    @Test func recordPaddingProvenBySizeIsReadWithoutShifting() throws {
        var f = points(3)
        f.dbfRecordLengthOverride = UInt16(1 + 6 + 4 + 5)
        f.dbfRecordPadding = 5
        let r = try readFixture(f)
        #expect(names(r) == [.string("r1"), .string("r2"), .string("r3")])
        #expect(r.features.map { $0.properties["N"] } == [.int(1), .int(2), .int(3)])
        #expect(r.diagnostics(.dbfRecordPadding).first?.message.contains("5 more than the fields need") == true)
    }

    @Test func recordLengthLongerThanTheFieldsWithoutProofIsRejected() throws {
        // Records written at the field widths while the header says 5 bytes more: reading would shift rows.
        var f = points(3)
        f.dbfRecordLengthOverride = UInt16(1 + 6 + 4 + 5)
        let e = try openError(f)
        #expect(e?.code == .badDbfHeader)
        #expect(e?.description.contains("record length 16 does not equal 1 + the field widths (11)") == true)
    }

    @Test func noEndMarkerAndTrailingBytesAreFine() throws {
        var f = points(2)
        f.dbfEndMarker = false
        let r = try readFixture(f)
        #expect(names(r) == [.string("r1"), .string("r2")])
        var g = points(2)
        g.dbfTrailer = Array(repeating: 0x1A, count: 7)
        let s = try readFixture(g)
        #expect(names(s) == [.string("r1"), .string("r2")])
        #expect(s.sink.samples.filter { $0.file == "layer.dbf" }.isEmpty)
    }

    @Test func characterFieldWiderThan255IsReadTheClipperWay() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0), .point(1, 1)])
        // 300 = 1 × 256 + 44: the width byte holds 44, the decimals byte 1.
        f.fields = [.init("LONG", "C", width: 44, decimals: 1), .init("N", "N", width: 3)]
        let long = String(repeating: "x", count: 299) + "y"
        f.dbfRawRows = [
            Array(long.utf8) + Array("  7".utf8),
            Array("short".utf8) + [UInt8](repeating: 0x20, count: 295) + Array(" 12".utf8),
        ]
        f.dbfRecordLengthOverride = UInt16(1 + 300 + 3)
        let r = try readFixture(f)
        #expect(r.features.map { $0.properties["LONG"] } == [.string(long), .string("short")])
        #expect(r.features.map { $0.properties["N"] } == [.int(7), .int(12)])
        #expect(r.schema.fields[0].width == 300 && r.schema.fields[0].decimals == 0)
        #expect(r.sink.count(.longCharacterField) == 1)
    }

    @Test func asterisksNulFilledNumbersAndZeroDatesAreNullWithACount() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: (0..<4).map { .point(Double($0), 0) })
        f.fields = [.init("N", "N", width: 5), .init("D", "D", width: 8)]
        f.dbfRawRows = [
            Array("*****".utf8) + Array("00000000".utf8),
            [0, 0, 0, 0, 0] + Array("0000    ".utf8),
            Array("   42".utf8) + Array("        ".utf8),
            [0x20, 0x20, 0x31, 0, 0] + Array("20240131".utf8),
        ]
        let r = try readFixture(f)
        #expect(r.features.map { $0.properties["N"] } == [.null, .null, .int(42), .int(1)])
        #expect(r.features.map { $0.properties["D"] } == [.null, .null, .null, .string("2024-01-31")])
        #expect(r.stats.coercedToNull == [.overflowMarker: 1, .nulFilledNumber: 1, .zeroDate: 2])
        #expect(r.diagnostics(.zeroDate).map(\.record) == [1, 2])
        #expect(
            r.diagnostics(.nulFilledNumber).first?.message
                == "field N: the value is filled with NUL bytes; stored as null")
    }

    @Test func foxProBinaryFieldsAreDecoded() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0), .point(1, 1)])
        f.dbfVersion = 0x30
        f.fields = [
            .init("I", "I", width: 4), .init("B", "B", width: 8, decimals: 2), .init("T", "T", width: 8),
            .init("Y", "Y", width: 8, decimals: 4), .init("_NullFlags", "0", width: 1),
        ]
        f.dbfHeaderLengthOverride = UInt16(32 + 32 * 5 + 1 + 263)
        func le32(_ v: Int32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        func le64(_ v: Int64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        func dbl(_ v: Double) -> [UInt8] { withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) } }
        // 2024-02-29 12:34:56.789 is Julian day 2460370.
        f.dbfRawRows = [
            le32(-123_456) + dbl(2.5) + le32(2_460_370) + le32(45_296_789) + le64(123_456_789) + [0],
            le32(7) + dbl(.infinity) + [UInt8](repeating: 0, count: 8) + le64(-50_000) + [0],
        ]
        let r = try readFixture(f)
        #expect(r.schema.fields.map(\.name) == ["I", "B", "T", "Y"])
        #expect(r.schema.fields.map(\.type) == [.integer, .double, .string, .double])
        let a = r.features[0].properties
        #expect(a["I"] == .int(-123_456) && a["B"] == .double(2.5) && a["Y"] == .double(12_345.6789))
        #expect(a["T"] == .string("2024-02-29T12:34:56.789"))
        let b = r.features[1].properties
        #expect(b["I"] == .int(7) && b["B"] == .null && b["T"] == .null && b["Y"] == .double(-5))
        #expect(r.stats.coercedToNull == [.numberOutOfRange: 1])
        #expect(r.sink.count(.droppedField) == 1)
    }

    @Test func julianDaysConvertToCivilDates() {
        #expect(DBFValueParser.civilDate(julianDay: 2_440_588) == (1970, 1, 1))
        #expect(DBFValueParser.civilDate(julianDay: 2_451_545) == (2000, 1, 1))
        #expect(DBFValueParser.civilDate(julianDay: 1_721_426) == (1, 1, 1))
        #expect(DBFValueParser.civilDate(julianDay: 5_373_484) == (9999, 12, 31))
        let bad = DBFValueParser.dateTime([1, 0, 0, 0, 0, 0, 0, 0])
        if case .coerced(let code, _) = bad { #expect(code == .badDate) } else { Issue.record("\(bad)") }
    }

    @Test func oleAndPictureFieldsAreDropped() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        f.fields = [.init("NAME", "C", width: 2), .init("PIC", "G", width: 10)]
        f.rows = [[Array("ab".utf8), Array("1".utf8)]]
        let r = try readFixture(f)
        #expect(r.schema.fields.map(\.name) == ["NAME"])
        #expect(r.diagnostics(.droppedField).first?.message.contains("binary, OLE or picture") == true)
    }
}
