import KartpackCore
import KartpackTestSupport
import Testing

@testable import Shapefile

/// dBASE II and dBASE 7 tables (issue 36: infused/dbf's dbase_02 and dbase_8c were refused as `bad_dbf_header`):
/// their headers are read by `DBFLegacyHeader`, their records as dBASE III records.
@Suite struct DBFLegacyHeaderTests {
    /// `v` as `n` little-endian bytes.
    static func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// A dBASE II `.dbf`: 8-byte header, 16-byte descriptors, 0x0D, records from byte 521.
    static func dBase2(fields: [(String, Character, Int, Int)], rows: [String], trailer: [UInt8] = []) -> [UInt8] {
        let length = 1 + fields.reduce(0) { $0 + $1.2 }
        var b: [UInt8] = [0x02, UInt8(rows.count & 0xFF), UInt8(rows.count >> 8), 7, 31, 82]
        b += le(length, 2)
        for f in fields {
            var d = Array(f.0.utf8).prefix(11) + [UInt8](repeating: 0, count: 11 - min(11, f.0.utf8.count))
            d += [UInt8(ascii: Unicode.Scalar(String(f.1))!), UInt8(f.2), 0, 0, UInt8(f.3)]
            b += d
        }
        b.append(0x0D)
        b += [UInt8](repeating: 0, count: 521 - b.count)
        for r in rows { b += [0x20] + Array(r.utf8) }
        return b + [0x1A] + trailer
    }

    /// A dBASE 7 `.dbf` (version 0x04): 32-byte header, language-driver name, 48-byte descriptors, 0x0D, a field
    /// properties block the header length skips, then the records.
    static func dBase7(fields: [(String, Character, Int, Int)], rows: [[UInt8]]) -> [UInt8] {
        let length = 1 + fields.reduce(0) { $0 + $1.2 }
        let headerLength = 68 + 48 * fields.count + 1 + 16
        var b: [UInt8] = [0x04, 124, 1, 2]
        b += le(rows.count, 4) + le(headerLength, 2) + le(length, 2)
        b += [UInt8](repeating: 0, count: 32 - b.count)
        b += Array("DB437US0".utf8) + [UInt8](repeating: 0, count: 24 + 4)
        for f in fields {
            var d = Array(f.0.utf8) + [UInt8](repeating: 0, count: 32 - f.0.utf8.count)
            d += [UInt8(ascii: Unicode.Scalar(String(f.1))!), UInt8(f.2), UInt8(f.3)]
            b += d + [UInt8](repeating: 0, count: 48 - d.count)
        }
        b.append(0x0D)
        b += [UInt8](repeating: 0xEE, count: headerLength - b.count)
        for r in rows { b += [0x20] + r }
        return b + [0x1A]
    }

    func fixture(dbf: [UInt8], points: Int) -> ShapefileFixture {
        var f = ShapefileFixture(shapeType: .point, shapes: (0..<points).map { .point(Double($0), 0) })
        f.writeDBF = false
        f.extraFiles = ["dbf": dbf]
        return f
    }

    @Test func dBase2RecordsAreReadWithTheirFields() throws {
        let dbf = Self.dBase2(
            fields: [("EMP:NMBR", "N", 3, 0), ("LAST", "C", 10, 0), ("PAYRATE", "N", 8, 3)],
            rows: ["  2Stegman      6.000", " 13Heymann     12.500"], trailer: [UInt8](repeating: 0x1A, count: 40))
        let r = try readFixture(fixture(dbf: dbf, points: 2))
        #expect(r.schema.fields.map(\.name) == ["EMP:NMBR", "LAST", "PAYRATE"])
        #expect(r.features.map { $0.properties["LAST"] } == [.string("Stegman"), .string("Heymann")])
        #expect(r.features.map { $0.properties["EMP:NMBR"] } == [.int(2), .int(13)])
        #expect(r.features.map { $0.properties["PAYRATE"] } == [.double(6), .double(12.5)])
        let w = try #require(r.diagnostics(.dbfLegacyLayout).first)
        #expect(w.message.contains("dBASE II"), "\(w.message)")
    }

    /// FoxBASE wrote 0x02 over a dBASE III header: a dBASE II reading that does not hold is not taken.
    @Test func versionTwoWithADBase3HeaderIsReadAsDBase3() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        f.fields = [.init("NAME", "C", width: 8)]
        f.rows = [[Array("Joe".utf8)]]
        f.dbfVersion = 0x02
        let r = try readFixture(f)
        #expect(r.features.first?.properties["NAME"] == .string("Joe"))
        #expect(r.diagnostics(.dbfLegacyLayout).isEmpty)
    }

    @Test func dBase7FieldsAndBinaryValuesAreRead() throws {
        // ID '+': 4-byte big-endian with the sign bit flipped (1 → 80 00 00 01, -2 → 7F FF FF FE); LEN 'O':
        // 8-byte big-endian double, sign bit flipped (2.5) or all bits inverted (-1).
        func double(_ d: Double) -> [UInt8] {
            let bits = d.sign == .plus ? d.bitPattern ^ (1 << 63) : ~d.bitPattern
            return (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
        }
        let rows: [[UInt8]] = [
            [0x80, 0, 0, 1] + Array("Clown Triggerfish ".utf8) + double(2.5),
            [0x7F, 0xFF, 0xFF, 0xFE] + Array("Blue Angelfish    ".utf8) + double(-1),
        ]
        let dbf = Self.dBase7(
            fields: [("ID", "+", 4, 0), ("Name of the fish", "C", 18, 0), ("LEN", "O", 8, 0)], rows: rows)
        let r = try readFixture(fixture(dbf: dbf, points: 2))
        #expect(r.schema.fields.map(\.name) == ["ID", "Name of the fish", "LEN"])
        #expect(r.features.map { $0.properties["ID"] } == [.int(1), .int(-2)])
        #expect(
            r.features.map { $0.properties["Name of the fish"] } == [
                .string("Clown Triggerfish"), .string("Blue Angelfish"),
            ])
        #expect(r.features.map { $0.properties["LEN"] } == [.double(2.5), .double(-1)])
        #expect(r.diagnostics(.dbfLegacyLayout).first?.message.contains("dBASE 7") == true)
    }

    @Test func aDBase7HeaderThatDoesNotAddUpIsRefused() throws {
        var dbf = Self.dBase7(fields: [("NAME", "C", 4, 0)], rows: [Array("abcd".utf8)])
        dbf[10] = 9  // record length 9, fields need 5
        let e = try openError(fixture(dbf: dbf, points: 1))
        #expect(e?.code == .badDbfHeader && e?.description.contains("dBASE 7") == true, "\(String(describing: e))")
    }

    @Test func dBase7ValuesDecode() {
        #expect(DBFValueParser.dBase7Integer([0, 0, 0, 0]) == .nullInSource)
        #expect(DBFValueParser.dBase7Integer([0x80, 0, 1, 0]) == .value(.int(256)))
        #expect(DBFValueParser.dBase7Integer([0x7F, 0xFF, 0xFF, 0xFF]) == .value(.int(-1)))
        #expect(DBFValueParser.dBase7Double([0xC0, 0, 0, 0, 0, 0, 0, 0]) == .value(.double(2)))
        #expect(DBFValueParser.dBase7Double([0x3F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == .value(.double(-2)))
    }
}
