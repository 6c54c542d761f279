import Foundation
import KartpackTestSupport
import Testing

/// `kartpack validate PIPELINE.json` warns about a Shapefile whose stored record boxes cannot be trusted (a box
/// that does not hold its record's vertices, a `.shx` out of file order: the audit a shard plan makes), naming the
/// file and the first record, with the reason code `record_box_untrusted`; a sound file gets no such warning.
@Suite struct ValidateRecordBoxTests {
    static func pipeline(_ source: String, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file("pipeline.json")
        let text = """
            { "version": 1, "sources": [ { "path": "\(source)", "layer": "stands" } ],
              "tiles": { "minZoom": 8, "maxZoom": 12 }, "output": { "path": "out/stands.pmtiles" } }
            """
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        return path
    }

    @Test func aLyingBoxIsAWarningNamingTheFileAndRecord() throws {
        let dir = try TemporaryDirectory()
        let stands = try ShardUntrustedBoxTests.lyingStands(in: dir)
        let r = try runKartpack(["validate", try Self.pipeline(stands, in: dir)])
        #expect(r.status == 0, "warnings only: \(r.stdout) \(r.stderr)")
        let line = try #require(r.stdout.split(separator: "\n").first { $0.contains("record_box_untrusted") })
        #expect(line.hasPrefix("warning: "), "\(line)")
        #expect(line.contains("stands.shp: record "), "\(line)")
        #expect(line.contains("'s stored box does not hold its vertices"), "\(line)")
    }

    @Test func anIndexOutOfOrderIsAWarningAndASoundFileIsNot() throws {
        let dir = try TemporaryDirectory()
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            try FileManager.default.copyItem(
                atPath: RepositoryPaths.sampleForest.appendingPathComponent("vagar.\(ext)").path,
                toPath: dir.file("vagar.\(ext)"))
        }
        let pipeline = try Self.pipeline(dir.file("vagar.shp"), in: dir)
        let sound = try runKartpack(["validate", pipeline])
        #expect(sound.status == 0, "\(sound.stdout) \(sound.stderr)")
        #expect(!sound.stdout.contains("record_box_untrusted"), "\(sound.stdout)")
        // The .shx lists the second record first.
        var shx = try Data(contentsOf: URL(fileURLWithPath: dir.file("vagar.shx")))
        let first = shx[100..<108]
        shx.replaceSubrange(100..<108, with: shx[108..<116])
        shx.replaceSubrange(108..<116, with: first)
        try shx.write(to: URL(fileURLWithPath: dir.file("vagar.shx")))
        let swapped = try runKartpack(["validate", pipeline])
        #expect(swapped.status == 0, "\(swapped.stdout) \(swapped.stderr)")
        #expect(
            swapped.stdout.contains(
                "vagar.shp: its .shx does not index the records in file order (from record 1): its stored record "
                    + "boxes cannot be trusted"), "\(swapped.stdout)")
        #expect(swapped.stdout.contains("[record_box_untrusted]"), "\(swapped.stdout)")
    }
}
