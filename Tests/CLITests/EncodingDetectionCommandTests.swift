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

    @Test func anUnsureGuessIsWarnedAndUnreadableTextRefused() throws {
        let dir = try TemporaryDirectory()
        let guessed = try runKartpack(["inspect", try layer([Array("Minist".utf8) + [0xE8, 0x72, 0x65]], in: dir)])
        #expect(guessed.status == 0, "\(guessed.stderr)")
        #expect(guessed.stdout.contains("CP1250 reads it as well"), "\(guessed.stdout)")
        #expect(guessed.stdout.contains("confidence low"), "\(guessed.stdout)")

        let other = try TemporaryDirectory()
        // Mazovia (Polish DOS), which iconv has no table for.
        let shp = try layer([[0x98, 0xD7, 0x88, 0x89, 0xE7, 0xF5, 0x9E]], in: other)
        let refused = try runKartpack(["convert", shp, "-o", other.file("out.pmtiles")])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("[unknown_encoding]") && refused.stderr.contains("--encoding"), "\(refused.stderr)")
        let forced = try runKartpack(["inspect", shp, "--encoding", "CP852"])
        #expect(forced.status == 0, "\(forced.stderr)")
    }
}
