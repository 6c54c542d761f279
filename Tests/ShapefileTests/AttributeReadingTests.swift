import Foundation
import KartpackCore
import KartpackTestSupport
import Testing
@Suite struct AttributeReadingTests {
    /// Points with one row per value of a single field.
    func fixture(_ field: ShapefileFixture.Field, _ values: [String]) -> ShapefileFixture {
        var f = ShapefileFixture(shapeType: .point, shapes: values.indices.map { .point(Double($0), 0) })
        f.fields = [field]
        f.rows = values.map { [Array($0.utf8)] }
        return f
    }

    func values(_ r: ReadResult, _ name: String) -> [PropertyValue?] { r.features.map { $0.properties[name] } }

    @Test func integersIncludingWideOnes() throws {
        let r = try readFixture(
            fixture(.init("POP", "N", width: 20), ["42", "-7", "12345678901234", "9999999999", "+5", "", "*****"]))
        #expect(
            values(r, "POP") == [
                .int(42), .int(-7), .int(12_345_678_901_234), .int(9_999_999_999), .int(5), .null, .null,
            ])
        #expect(
            r.schema.fields == [FieldDefinition(name: "POP", type: .integer, width: 20, decimals: 0, nativeType: "N")])
        #expect(r.stats.coercedToNull == [.overflowMarker: 1], "blank is null in the source; ***** is counted")
    }

    @Test func doubles() throws {
        let r = try readFixture(
            fixture(.init("AREA", "N", width: 12, decimals: 3), ["1.500", "-0.25", "3", ".5", "1e3"]))
        #expect(values(r, "AREA") == [.double(1.5), .double(-0.25), .double(3), .double(0.5), .double(1000)])
        #expect(r.schema.fields[0].type == .double && r.schema.fields[0].decimals == 3)
        let f = try readFixture(fixture(.init("LEN", "F", width: 10, decimals: 2), ["2.25"]))
        #expect(values(f, "LEN") == [.double(2.25)] && f.schema.fields[0].nativeType == "F")
    }

    @Test func garbageNumbersBecomeNullAndAreCounted() throws {
        let r = try readFixture(
            fixture(.init("AREA", "N", width: 10, decimals: 2), ["1,5", "abc", "--5", "12", "1.2.3"]))
        #expect(values(r, "AREA") == [.null, .null, .null, .double(12), .null])
        #expect(r.stats.coercedToNull == [.unparseableNumber: 4])
        let d = try #require(r.diagnostics(.unparseableNumber).first)
        #expect(d.message == "field AREA: \"1,5\" is not a number; stored as null")
        #expect(d.file == "layer.dbf" && d.record == 1)
    }

    @Test func outOfRangeNumbers() throws {
        let r = try readFixture(
            fixture(
                .init("V", "N", width: 24), ["1e999", "NaN", "99999999999999999999", "-inf", "9223372036854775807"]))
        #expect(values(r, "V") == [.null, .null, .null, .null, .int(Int64.max)])
        #expect(r.stats.coercedToNull == [.numberOutOfRange: 4])
    }

    @Test func logicals() throws {
        let r = try readFixture(
            fixture(.init("OK", "L", width: 1), ["T", "t", "Y", "y", "F", "f", "N", "n", "?", "", "X"]))
        #expect(
            values(r, "OK") == [
                .bool(true), .bool(true), .bool(true), .bool(true), .bool(false), .bool(false), .bool(false),
                .bool(false), .null, .null, .null,
            ])
        #expect(r.schema.fields[0].type == .logical)
        #expect(r.stats.coercedToNull == [.badLogical: 1])
    }

    @Test func dates() throws {
        let r = try readFixture(
            fixture(
                .init("DAY", "D", width: 8),
                ["20240229", "19991231", "00000000", "", "20231340", "20230229", "2023011", "1900022x"]))
        #expect(
            values(r, "DAY") == [
                .string("2024-02-29"), .string("1999-12-31"), .null, .null, .null, .null, .null, .null,
            ])
        #expect(r.stats.coercedToNull == [.badDate: 4, .zeroDate: 1])
        #expect(r.schema.fields[0].type == .date)
    }

    @Test func stringsAreTrimmedAndBlankIsNull() throws {
        let r = try readFixture(fixture(.init("NAME", "C", width: 10), ["Main St", "", "  x  "]))
        #expect(values(r, "NAME") == [.string("Main St"), .null, .string("x")])
    }

    @Test func unknownFieldTypeIsReadAsText() throws {
        let r = try readFixture(fixture(.init("MEMO", "X", width: 5), ["abc"]))
        #expect(values(r, "MEMO") == [.string("abc")])
        #expect(r.schema.fields[0].type == .string && r.schema.fields[0].nativeType == "X")
        #expect(r.sink.count(.unknownFieldType) == 1)
    }

    @Test func duplicateFieldNamesAreDeduplicated() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        f.fields = [.init("NAME", "C", width: 3), .init("NAME", "C", width: 3), .init("NAME_1", "C", width: 3)]
        f.rows = [[Array("a".utf8), Array("b".utf8), Array("c".utf8)]]
        let r = try readFixture(f)
        #expect(r.schema.fields.map(\.name) == ["NAME", "NAME_1", "NAME_1_1"])
        #expect(r.features[0].properties.keys == ["NAME", "NAME_1", "NAME_1_1"])
        #expect(r.features[0].properties.values == [.string("a"), .string("b"), .string("c")])
        #expect(r.sink.count(.duplicateFieldName) == 2)
    }

    @Test func elevenByteNameWithoutNul() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        f.fields = [.init("ABCDEFGHIJK", "N", width: 4)]
        f.rows = [[Array("12".utf8)]]
        let r = try readFixture(f)
        #expect(r.schema.fields.map(\.name) == ["ABCDEFGHIJK"])
        #expect(r.features[0].properties["ABCDEFGHIJK"] == .int(12))
    }

    @Test func deletedRecordsSkipTheWholeRecord() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: (0..<4).map { .point(Double($0), 0) })
        f.addNames()
        f.deletedRows = [1, 2]
        let r = try readFixture(f)
        #expect(r.features.map(\.id) == [1, 4])
        #expect(r.features[1].properties["NAME"] == .string("r4"))
        #expect(r.stats.skipped == [.deletedInSource: 2] && r.stats.deletedRecords == 2)
    }

    @Test func fewerDBFRowsGiveNullAttributesWithoutShifting() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: (0..<4).map { .point(Double($0), 0) })
        f.fields = [.init("NAME", "C", width: 5)]
        f.rows = nameRows(2)
        let r = try readFixture(f)
        #expect(r.features.count == 4)
        #expect(r.features.map { $0.properties["NAME"] } == [.string("r1"), .string("r2"), .null, .null])
        #expect(r.stats.dbfRecordCount == 2)
        let w = try #require(r.diagnostics(.missingAttributes).first)
        #expect(w.message.contains("4") && w.message.contains("2"))
    }

    @Test func moreDBFRowsWarnOrphans() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        f.fields = [.init("NAME", "C", width: 5)]
        f.rows = nameRows(3)
        let r = try readFixture(f)
        #expect(r.features.count == 1 && r.features[0].properties["NAME"] == .string("r1"))
        let w = try #require(r.diagnostics(.orphanDbfRows).first)
        #expect(w.message.contains("3") && w.message.contains("1"))
    }

    @Test func lyingDBFRecordCountIsCapped() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: (0..<3).map { .point(Double($0), 0) })
        f.addNames()
        f.dbfRecordCountOverride = 0x7FFF_FFFF
        let r = try readFixture(f)
        #expect(r.features.map { $0.properties["NAME"] } == [.string("r1"), .string("r2"), .string("r3")])
        #expect(r.stats.dbfRecordCount == 3)
        #expect(r.sink.count(.dbfCountLies) == 1)
        #expect(r.sink.count(.orphanDbfRows) == 0)
    }

    @Test func badDBFHeadersAreRejected() throws {
        var shifted = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        shifted.addNames()
        shifted.dbfHeaderLengthOverride = UInt16(32 + 32 + 1 + 3)
        shifted.dbfPadHeader = false
        let a = try openError(shifted)
        #expect(a?.exitCode == .dataError)
        #expect(a?.description.contains("bad_dbf_header") == true)
        #expect(a?.description.contains("layer.dbf") == true)

        var recordLength = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        recordLength.addNames()
        recordLength.dbfRecordLengthOverride = 10
        #expect(try openError(recordLength)?.description.contains("record length") == true)

        var zeroRecord = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        zeroRecord.addNames()
        zeroRecord.dbfRecordLengthOverride = 0
        #expect(try openError(zeroRecord)?.description.contains("record length is 0") == true)

        var tiny = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        tiny.addNames()
        tiny.dbfHeaderLengthOverride = 20
        #expect(try openError(tiny)?.exitCode == .dataError)
    }

    @Test func paddedHeaderConfirmedByFileSizeIsAccepted() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0), .point(1, 1)])
        f.addNames()
        f.dbfHeaderLengthOverride = UInt16(32 + 32 + 2)
        let r = try readFixture(f)
        #expect(r.features.map { $0.properties["NAME"] } == [.string("r1"), .string("r2")])
        #expect(r.sink.count(.dbfHeaderPadding) == 1)
    }

    @Test func missingDBFGivesGeometryOnly() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0), .point(1, 1)])
        f.writeDBF = false
        let r = try readFixture(f)
        #expect(r.features.count == 2 && r.features[0].properties.isEmpty)
        #expect(r.schema.fields.isEmpty && r.stats.dbfRecordCount == nil)
        #expect(r.sink.count(.noAttributes) == 1)
    }

    @Test func widthZeroFieldIsDropped() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        f.fields = [.init("GONE", "C", width: 0), .init("KEPT", "C", width: 3)]
        f.rows = [[[], Array("abc".utf8)]]
        let r = try readFixture(f)
        #expect(r.schema.fields.map(\.name) == ["KEPT"] && r.features[0].properties["KEPT"] == .string("abc"))
        #expect(r.sink.count(.droppedField) == 1)
    }
}
