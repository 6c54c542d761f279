import Foundation
import KartpackTestSupport
import Testing

/// What a user sees of encoding detection (issue 36): `inspect` names the detected code page and how sure it is, an
/// unsure guess is warned, and text no code page reads cleanly is refused with the way out.
@Suite struct EncodingDetectionCommandTests {
    func layer(_ values: [[UInt8]], in dir: TemporaryDirectory) throws -> String {
        var f = ShapefileFixture(shapeType: .point, shapes: values.indices.map { .point(Double($0), 0) })
        f.fields = [.init("NAME", "C", width: 24)]
        f.rows = values.map { [$0] }
        f.prj = Array(
            (#"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],"#
                + #"PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]"#).utf8)
        return try f.write(to: dir.path)
    }

    @Test func dosTextIsDetectedAndShown() throws {
        let dir = try TemporaryDirectory()
        // CP850 (DOS Latin 1, FoxPro): penedès, Marià.
        let shp = try layer([Array("pened".utf8) + [0x8A, 0x73], Array("Mari".utf8) + [0x85]], in: dir)
        let text = try runKartpack(["inspect", shp])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("encoding:   CP850 from detected"), "\(text.stdout)")
        #expect(text.stdout.contains("confidence high"), "\(text.stdout)")
        let json = try runKartpack(["inspect", shp, "--format", "json", "--features"])
        let doc = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let layer = try #require((doc?["layers"] as? [[String: Any]])?.first)
        let encoding = layer["encoding"] as? [String: Any]
        #expect(encoding?["confidence"] as? String == "high" && encoding?["origin"] as? String == "detected")
        let names = (layer["featureDump"] as? [[String: Any]])?.compactMap {
            ($0["properties"] as? [String: Any])?["NAME"] as? String
        }
        #expect(names == ["penedès", "Marià"])
    }

    @Test func ambiguousTextIsRefusedWithTheWayOutAndUnreadableTextToo() throws {
        let dir = try TemporaryDirectory()
        // "Ministère" in CP1252 is "Ministčre" in CP1250: French or Czech letters, the text cannot tell.
        let shp = try layer([Array("Minist".utf8) + [0xE8, 0x72, 0x65]], in: dir)
        let ambiguous = try runKartpack(["convert", shp, "-o", dir.file("out.pmtiles")])
        #expect(ambiguous.status == 65, "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("[unknown_encoding]"), "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("Ministčre") && ambiguous.stderr.contains(".cpg"), "\(ambiguous.stderr)")
        try Data("1252".utf8).write(to: URL(fileURLWithPath: dir.file("layer.cpg")))
        let declared = try runKartpack(["inspect", shp])
        #expect(declared.status == 0 && declared.stdout.contains("encoding:   CP1252 from cpg"), "\(declared.stdout)")

        let other = try TemporaryDirectory()
        // Mazovia (Polish DOS), which iconv has no table for.
        let mazovia = try layer([[0x98, 0xD7, 0x88, 0x89, 0xE7, 0xF5, 0x9E]], in: other)
        let refused = try runKartpack(["convert", mazovia, "-o", other.file("out.pmtiles")])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("[unknown_encoding]") && refused.stderr.contains("--encoding"), "\(refused.stderr)")
        let forced = try runKartpack(["inspect", mazovia, "--encoding", "CP852"])
        #expect(forced.status == 0, "\(forced.stderr)")
    }

    /// A forester's old export: a lone `DÖD` (CP1252) without .cpg or LDID reads as `DÍD` in DOS CP850 too. It is
    /// converted as CP1252 with an `encoding_tie` warning that names the other reading, and `inspect` says "tie".
    @Test func aWindowsOrDOSTieIsReadAsCP1252AndWarned() throws {
        let dir = try TemporaryDirectory()
        let shp = try layer([Array("D".utf8) + [0xD6, 0x44]], in: dir)
        let convert = try runKartpack(["convert", shp, "-o", dir.file("out.pmtiles"), "--max-zoom", "4"])
        #expect(convert.status == 0, "\(convert.stderr)")
        #expect(
            convert.stderr.contains("reads as well in CP1252 (\"DÖD\"") && convert.stderr.contains("CP850 (\"DÍD\"")
                && convert.stderr.contains(".cpg"), "\(convert.stderr)")
        let report = try runKartpack([
            "convert", shp, "-o", dir.file("out.pmtiles"), "--max-zoom", "4", "--force", "--report",
            dir.file("report.json"),
        ])
        let json = try String(contentsOfFile: dir.file("report.json"), encoding: .utf8)
        #expect(report.status == 0 && json.contains("encoding_tie"), "\(json)")
        let text = try runKartpack(["inspect", shp])
        #expect(text.stdout.contains("encoding:   CP1252 from detected") && text.stdout.contains("confidence tie"))
        #expect(text.stdout.contains("DÍD"), "\(text.stdout)")
    }

    /// Czech place names in CP1250 without a .cpg: read as Czech, not as CP1252 letters (`øeka`).
    @Test func czechTextIsDetected() throws {
        let dir = try TemporaryDirectory()
        let words = ["řeka Berounka", "Plzeň", "České Budějovice"]
        let shp = try layer(try words.map { Array(try #require($0.data(using: .windowsCP1250))) }, in: dir)
        let json = try runKartpack(["inspect", shp, "--format", "json", "--features"])
        #expect(json.status == 0, "\(json.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let layer = try #require((doc?["layers"] as? [[String: Any]])?.first)
        #expect((layer["encoding"] as? [String: Any])?["name"] as? String == "CP1250")
        let names = (layer["featureDump"] as? [[String: Any]])?.compactMap {
            ($0["properties"] as? [String: Any])?["NAME"] as? String
        }
        #expect(names == words)
    }
}
