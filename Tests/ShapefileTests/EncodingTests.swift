import Foundation
import KartpackCore
import KartpackTestSupport
import Testing

@testable import Shapefile

@Suite struct EncodingTests {
    /// One point with a `NAME C(20)` value and a field name given as raw bytes.
    func fixture(value: [UInt8], fieldName: [UInt8] = Array("NAME".utf8)) -> ShapefileFixture {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0)])
        f.fields = [.init(nameBytes: fieldName, type: UInt8(ascii: "C"), width: 20)]
        f.rows = [[value]]
        return f
    }

    func name(_ r: ReadResult) -> PropertyValue? { r.features.first?.properties.values.first }

    @Test func latin1ViaCPG() throws {
        var f = fixture(value: ShapefileFixture.latin1("Göteborg"))
        f.cpg = Array("ISO-8859-1\r\n".utf8)
        let r = try readFixture(f)
        #expect(name(r) == .string("Göteborg"))
        #expect(r.schema.encoding == EncodingInfo(name: "ISO-8859-1", origin: "cpg", detail: "ISO-8859-1"))
    }

    @Test func cpgSpellingsMapLikeGDAL() {
        #expect(CodePage.canonicalName("UTF8") == "UTF-8")
        #expect(CodePage.canonicalName("88591") == "ISO-8859-1")
        #expect(CodePage.canonicalName("8859-1") == "ISO-8859-1")
        #expect(CodePage.canonicalName("latin1") == "ISO-8859-1")
        #expect(CodePage.canonicalName("1252") == "CP1252")
        #expect(CodePage.canonicalName("ANSI 1252") == "CP1252")
        #expect(CodePage.canonicalName("WINDOWS-1252") == "CP1252")
        #expect(CodePage.canonicalName("850") == "CP850")
        #expect(CodePage.canonicalName("") == nil)
        #expect(CodePage.canonicalName("\u{1}\u{2}") == nil)
    }

    @Test func latin1ViaLDID87() throws {
        var f = fixture(value: ShapefileFixture.latin1("Malmö"))
        f.languageDriver = 87
        let r = try readFixture(f)
        #expect(name(r) == .string("Malmö"))
        #expect(r.schema.encoding == EncodingInfo(name: "ISO-8859-1", origin: "ldid", detail: "LDID/87"))
    }

    @Test func cpgBeatsLDID() throws {
        var f = fixture(value: Array("Malmö".utf8))
        f.languageDriver = 87
        f.cpg = Array("UTF-8".utf8)
        let r = try readFixture(f)
        #expect(name(r) == .string("Malmö") && r.schema.encoding?.origin == "cpg")
    }

    @Test func ldidZeroFallsBackToCP1252PerValue() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0), .point(1, 1)])
        f.fields = [.init("NAME", "C", width: 20)]
        f.rows = [[Array("Malmö".utf8)], [ShapefileFixture.latin1("Göteborg") + [0x80]]]  // 0x80 = € in CP1252
        let r = try readFixture(f)
        #expect(r.features.map { $0.properties["NAME"] } == [.string("Malmö"), .string("Göteborg€")])
        #expect(r.schema.encoding?.name == "UTF-8" && r.schema.encoding?.origin == "default")
        #expect(r.stats.warnings["encoding_fallback"] == 1)
        #expect(r.diagnostics("encoding_fallback").first?.record == 2)
    }

    @Test func invalidUTF8UnderDeclaredUTF8IsReplacedAndCounted() throws {
        var f = fixture(value: Array("G".utf8) + [0xF6] + Array("teborg".utf8))
        f.cpg = Array("UTF-8".utf8)
        let r = try readFixture(f)
        #expect(name(r) == .string("G\u{FFFD}teborg"))
        #expect(r.stats.coercedToNull["invalid_utf8"] == 1)
        #expect(r.sink.count("invalid_utf8") == 1)
    }

    @Test func cp850ViaLDID2() throws {
        // CP850: 0x94 = ö, 0x81 = ü, 0x90 = É; the field name too.
        let f = {
            var f = fixture(
                value: [0x4D, 0x94, 0x6E, 0x63, 0x68, 0x65, 0x6E, 0x20, 0x81, 0x90], fieldName: [0x4E, 0x94])
            f.languageDriver = 2
            return f
        }()
        let r = try readFixture(f)
        #expect(r.schema.fields.map(\.name) == ["Nö"])
        #expect(r.features[0].properties["Nö"] == .string("Mönchen üÉ"))
        #expect(r.schema.encoding == EncodingInfo(name: "CP850", origin: "ldid", detail: "LDID/2"))
    }

    @Test func explicitEncodingAlwaysWins() throws {
        var f = fixture(value: [0x80])
        f.cpg = Array("UTF-8".utf8)
        f.languageDriver = 87
        let r = try readFixture(f, options: ShapefileReadOptions(encoding: "windows-1252"))
        #expect(name(r) == .string("€"))
        #expect(r.schema.encoding == EncodingInfo(name: "CP1252", origin: "option", detail: "windows-1252"))
    }

    @Test func unknownLDIDAndGarbageCPGAreRejectedUnlessOverridden() throws {
        var ldid = fixture(value: Array("x".utf8))
        ldid.languageDriver = 250
        let e = try openError(ldid)
        #expect(e?.exitCode == .dataError && e?.description.contains("LDID/250") == true)
        #expect(try readFixture(ldid, options: .init(encoding: "CP1252")).features.count == 1)

        var garbage = fixture(value: Array("x".utf8))
        garbage.cpg = [UInt8](repeating: 0x41, count: 5000)
        #expect(try openError(garbage)?.exitCode == .dataError)
        var nonsense = fixture(value: Array("x".utf8))
        nonsense.cpg = Array("NO-SUCH-CODEPAGE-42".utf8)
        #expect(try openError(nonsense)?.description.contains(".cpg") == true)
        #expect(try readFixture(nonsense, options: .init(encoding: "UTF-8")).features.count == 1)

        let bad = try openError(fixture(value: Array("x".utf8)), options: .init(encoding: "KLINGON-9"))
        #expect(bad?.exitCode == .dataError)
    }

    @Test func emptyCPGIsIgnored() throws {
        var f = fixture(value: ShapefileFixture.latin1("Malmö"))
        f.cpg = []
        f.languageDriver = 87
        let r = try readFixture(f)
        #expect(name(r) == .string("Malmö") && r.sink.count("empty_cpg") == 1)
    }

    @Test func cp932IsDecodedThroughIconv() throws {
        // "東京" in Shift-JIS / CP932.
        var f = fixture(value: [0x93, 0x8C, 0x8B, 0x9E])
        f.cpg = Array("932".utf8)
        #expect(name(try readFixture(f)) == .string("東京"))
    }
}

@Suite struct ValueParserTests {
    @Test func numberGrammar() {
        #expect(DBFValueParser.number("5.", decimals: 2) == .value(.double(5)))
        #expect(DBFValueParser.number("-0", decimals: 0) == .value(.int(0)))
        #expect(DBFValueParser.number("1.0", decimals: 0) == .value(.int(1)))
        #expect(DBFValueParser.number("1.5", decimals: 0) == .value(.double(1.5)))
        if case .coerced(let code, _) = DBFValueParser.number("1e", decimals: 0) {
            #expect(code == "unparseable_number")
        } else {
            Issue.record("1e must not parse")
        }
        if case .coerced(let code, _) = DBFValueParser.number("- 5", decimals: 0) {
            #expect(code == "unparseable_number")
        } else {
            Issue.record("- 5 must not parse")
        }
    }
}
