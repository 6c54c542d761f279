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
        #expect(
            r.schema.encoding
                == EncodingInfo(name: "ISO-8859-1", origin: "cpg", detail: "ISO-8859-1", confidence: "declared"))
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
        #expect(
            r.schema.encoding
                == EncodingInfo(name: "ISO-8859-1", origin: "ldid", detail: "LDID/87", confidence: "declared"))
    }

    @Test func cpgBeatsLDID() throws {
        var f = fixture(value: Array("Malmö".utf8))
        f.languageDriver = 87
        f.cpg = Array("UTF-8".utf8)
        let r = try readFixture(f)
        #expect(name(r) == .string("Malmö") && r.schema.encoding?.origin == "cpg")
    }

    @Test func ldidZeroReadsUTF8PerValueAndDetectsTheRest() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0), .point(1, 1)])
        f.fields = [.init("NAME", "C", width: 20)]
        f.rows = [[Array("Malmö".utf8)], [ShapefileFixture.latin1("Göteborg") + [0x80]]]  // 0x80 = € in CP1252
        let r = try readFixture(f)
        #expect(r.features.map { $0.properties["NAME"] } == [.string("Malmö"), .string("Göteborg€")])
        #expect(r.schema.encoding?.name == "CP1252" && r.schema.encoding?.origin == "detected")
        #expect(r.schema.encoding?.confidence == "high")
        #expect(r.stats.warnings[.encodingFallback] == nil)
    }

    @Test func ldidZeroWithOnlyASCIIOrUTF8IsUTF8() throws {
        let ascii = try readFixture(fixture(value: Array("Malmo".utf8)))
        #expect(
            ascii.schema.encoding
                == EncodingInfo(
                    name: "UTF-8", origin: "detected", detail: "no .cpg and LDID 0: all text is ASCII",
                    confidence: "ascii"))
        let utf8 = try readFixture(fixture(value: Array("Malmö".utf8)))
        #expect(name(utf8) == .string("Malmö") && utf8.schema.encoding?.confidence == "high")
    }

    /// Issue 36: DOS code page 850 FoxPro text (infused/dbf's dbase_f5) was read as CP1252 ("penedŠs").
    @Test func dosCP850TextIsDetected() throws {
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(0, 0), .point(1, 1), .point(2, 2)])
        f.fields = [.init("NAME", "C", width: 20)]
        // penedès, Marià, català in CP850 (è = 0x8A, à = 0x85).
        f.rows = [
            [Array("pened".utf8) + [0x8A, 0x73]], [Array("Mari".utf8) + [0x85]], [Array("catal".utf8) + [0x85]],
        ]
        let r = try readFixture(f)
        #expect(r.features.map { $0.properties["NAME"] } == [.string("penedès"), .string("Marià"), .string("català")])
        #expect(r.schema.encoding?.name == "CP850" && r.schema.encoding?.confidence == "high")
    }

    /// Cyrillic CP1251 (DbfDataReader's INNAKLKVT20180904) was read as CP1252.
    @Test func cyrillicCP1251IsDetected() throws {
        let bytes = try #require("Некритюк Валентина".data(using: .windowsCP1251))
        let r = try readFixture(fixture(value: Array(bytes)))
        #expect(name(r) == .string("Некритюк Валентина"))
        #expect(r.schema.encoding?.name == "CP1251" && r.schema.encoding?.confidence == "high")
    }

    /// A lone French word reads as Czech letters in CP1250 too (`Ministère` / `Ministčre`): the text cannot tell,
    /// so the file is refused with both readings and the way to declare it, never guessed; with a `.cpg` it is read.
    @Test func anEquallyGoodReadingIsRefusedNeverGuessed() throws {
        let e = try openError(fixture(value: ShapefileFixture.latin1("Ministère")))
        let text = e?.description ?? ""
        #expect(e?.code == .unknownEncoding, "\(text)")
        #expect(text.contains("Ministère") && text.contains("Ministčre") && text.contains(".cpg"), "\(text)")
        var declared = fixture(value: ShapefileFixture.latin1("Ministère"))
        declared.cpg = Array("1252".utf8)
        #expect(name(try readFixture(declared)) == .string("Ministère"))
    }

    /// A lone Swedish `DÖD` in CP1252 is Spanish `DÍD` in DOS CP850: the one tie that is decided, for CP1252 (what
    /// ArcGIS and GDAL assume when nothing is declared), with an `encoding_tie` warning naming both readings. The same
    /// tie with CP1250 (`Ministère`) stays refused (above).
    @Test func aTieOfWindowsAndDOSLatinReadsCP1252WithAWarning() throws {
        let f = fixture(value: ShapefileFixture.latin1("DÖD"))
        let r = try readFixture(f)
        #expect(name(r) == .string("DÖD"))
        #expect(r.schema.encoding?.name == "CP1252" && r.schema.encoding?.confidence == "tie")
        let tie = r.diagnostics(.encodingTie).first?.message ?? ""
        #expect(r.sink.count(.encodingTie) == 1 && tie.contains("DÍD") && tie.contains(".cpg"), "\(tie)")
        guard case .windowsOverDOS = EncodingDetector.detect([ShapefileFixture.latin1("DÖD")]) else {
            Issue.record("a CP1252/CP850 tie should be decided for CP1252")
            return
        }
        // CP850's own letters still win where CP1252 reads them as symbols (`™` for 0x99 `Ö`).
        guard case .legacy(let page, _, _, _) = EncodingDetector.detect([Array("D".utf8) + [0x99, 0x44]]) else {
            Issue.record("CP850 Ö should be detected")
            return
        }
        #expect(page == "CP850")
    }

    /// Czech CP1250 text reads as letters in CP1252 too (`řeka` → `øeka`, `Plzeň` → `Plzeò`), but no language
    /// writes those letters together: CP1250, sure. (Before, it was read as CP1252 with only a warning.)
    @Test func czechCP1250IsDetectedByItsLetters() throws {
        let words = ["řeka Berounka", "Plzeň", "České Budějovice", "Brno-město", "Ústí nad Labem"]
        var f = ShapefileFixture(shapeType: .point, shapes: words.indices.map { .point(Double($0), 0) })
        f.fields = [.init("NAME", "C", width: 30)]
        f.rows = try words.map { [Array(try #require($0.data(using: .windowsCP1250)))] }
        // Every byte reads as a letter in CP1252: only the letters' language tells the code pages apart.
        let cp1252 = try #require(TextDecoder(encoding: "CP1252"))
        #expect(f.rows.allSatisfy { EncodingDetector.penalty(cp1252.decode($0[0]).0) == 0 })
        let r = try readFixture(f)
        #expect(r.features.map { $0.properties["NAME"] } == words.map { .string($0) })
        #expect(r.schema.encoding?.name == "CP1250" && r.schema.encoding?.confidence == "high")
        #expect(r.schema.encoding?.detail?.contains("language cs") == true, "\(String(describing: r.schema.encoding))")
    }

    /// Greek capitals read as well as Cyrillic capitals, and bytes no code page tried reads cleanly (Mazovia):
    /// refused, never guessed.
    @Test func unsureEncodingsAreRefused() throws {
        let greek = try #require("ΝΟΤΙΟΥ ΑΙΓΑΙΟΥ".data(using: .windowsCP1253))
        let e = try openError(fixture(value: Array(greek)))
        #expect(e?.code == .unknownEncoding && e?.description.contains("CP1253") == true, "\(String(describing: e))")
        #expect(try readFixture(fixture(value: Array(greek)), options: .init(encoding: "CP1253")).features.count == 1)
        var mazovia = fixture(value: [0x98, 0xD7, 0x88, 0x89, 0xE7, 0xF5, 0x9E])
        mazovia.languageDriver = 105
        let m = try openError(mazovia)
        #expect(m?.code == .unknownEncoding && m?.description.contains("LDID/105") == true)
        #expect(m?.description.contains("Mazovia (DOS code page 620)") == true, "\(String(describing: m))")
        // The same LDID with ASCII text reads: nothing needs the missing table.
        var ascii = fixture(value: Array("English".utf8))
        ascii.languageDriver = 105
        #expect(name(try readFixture(ascii)) == .string("English"))
    }

    @Test func invalidUTF8UnderDeclaredUTF8IsReplacedAndCounted() throws {
        var f = fixture(value: Array("G".utf8) + [0xF6] + Array("teborg".utf8))
        f.cpg = Array("UTF-8".utf8)
        let r = try readFixture(f)
        #expect(name(r) == .string("G\u{FFFD}teborg"))
        #expect(r.stats.coercedToNull[.invalidUtf8] == 1)
        #expect(r.sink.count(.invalidUtf8) == 1)
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
        #expect(
            r.schema.encoding == EncodingInfo(name: "CP850", origin: "ldid", detail: "LDID/2", confidence: "declared"))
    }

    @Test func explicitEncodingAlwaysWins() throws {
        var f = fixture(value: [0x80])
        f.cpg = Array("UTF-8".utf8)
        f.languageDriver = 87
        let r = try readFixture(f, options: ShapefileReadOptions(encoding: "windows-1252"))
        #expect(name(r) == .string("€"))
        #expect(
            r.schema.encoding
                == EncodingInfo(name: "CP1252", origin: "option", detail: "windows-1252", confidence: "declared"))
    }

    /// Issue 36: an LDID no code page is known for leaves the decision to the text (infused/dbf's
    /// dbase_03_cyrillic: LDID 0xF0 and UTF-8 text; DbfDataReader's FolderRoot: LDID 0x7F and ASCII).
    @Test func unknownLDIDLetsTheTextDecide() throws {
        var utf8 = fixture(value: Array("Шар".utf8))
        utf8.languageDriver = 0xF0
        let r = try readFixture(utf8)
        #expect(name(r) == .string("Шар") && r.schema.encoding?.origin == "detected")
        #expect(r.schema.encoding?.detail?.contains("LDID/240") == true)
        var ascii = fixture(value: Array("x".utf8))
        ascii.languageDriver = 0x7F
        #expect(try readFixture(ascii).schema.encoding?.confidence == "ascii")
    }

    /// A `.cpg` that names no code page (5000 bytes, an unknown name, `System`) is not trustworthy: ignored with a
    /// warning, and the text decides (issue 36). An `--encoding` iconv does not know is still refused.
    @Test func unusableCPGLetsTheTextDecide() throws {
        for cpg in [[UInt8](repeating: 0x41, count: 5000), Array("NO-SUCH-CODEPAGE-42".utf8), Array("System".utf8)] {
            var f = fixture(value: Array("Malmö".utf8))
            f.cpg = cpg
            let r = try readFixture(f)
            #expect(name(r) == .string("Malmö") && r.schema.encoding?.origin == "detected")
            #expect(r.sink.count(.ignoredCpg) == 1)
        }
        let bad = try openError(fixture(value: Array("x".utf8)), options: .init(encoding: "KLINGON-9"))
        #expect(bad?.exitCode == .dataError)
    }

    @Test func emptyCPGIsIgnored() throws {
        var f = fixture(value: ShapefileFixture.latin1("Malmö"))
        f.cpg = []
        f.languageDriver = 87
        let r = try readFixture(f)
        #expect(name(r) == .string("Malmö") && r.sink.count(.emptyCpg) == 1)
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
            #expect(code == .unparseableNumber)
        } else {
            Issue.record("1e must not parse")
        }
        if case .coerced(let code, _) = DBFValueParser.number("- 5", decimals: 0) {
            #expect(code == .unparseableNumber)
        } else {
            Issue.record("- 5 must not parse")
        }
    }
}
