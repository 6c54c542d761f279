import Foundation
import KartpackTestSupport
import Testing

@Suite struct ConvertCommandTests {
    private func sample(_ layer: String) -> String {
        RepositoryPaths.sampleForest.appendingPathComponent("\(layer).shp").path
    }

    @Test(arguments: [
        ["convert", "a.shp"],
        ["convert", "-o", "x.pmtiles"],
        ["convert", "a.shp", "-o", "x.geojson"],
        ["convert", "a.shp", "-o", "x.pmtiles", "--min-zoom", "9", "--max-zoom", "3"],
        ["convert", "a.shp", "-o", "x.pmtiles", "--max-zoom", "99"],
        ["convert", "a.shp", "-o", "x.pmtiles", "--threads", "0"],
        ["convert", "a.shp", "-o", "x.pmtiles", "--layer", "a", "--layer", "b"],
        ["convert", "a.shp", "-o", "x.pmtiles", "--simplify", "nan"],
    ])
    func badConvertCommandLinesExit64(_ args: [String]) throws {
        let r = try runKartpack(args)
        #expect(r.status == 64, "\(args): \(r.stderr)")
    }

    @Test func convertsWritesReportAndRefusesToOverwrite() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("roads.pmtiles")
        let report = dir.file("report.json")
        let r = try runKartpack([
            "convert", sample("vagar"), sample("fornminnen"), "-o", out, "--min-zoom", "10",
            "--max-zoom", "13", "--layer", "roads", "--report", report,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("wrote \(out)"))
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any]
        let inputs = json?["inputs"] as? [[String: Any]] ?? []
        #expect(inputs.map { $0["layer"] as? String } == ["roads", "fornminnen"])
        #expect(json?["featuresRead"] as? Int == 76)
        #expect(json?["featuresWritten"] as? Int == 76)
        let before = try Data(contentsOf: URL(fileURLWithPath: out))
        let again = try runKartpack(["convert", sample("vagar"), "-o", out])
        #expect(again.status == 73)
        #expect(again.stderr.contains("--force"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == before)

        let inspect = try runKartpack(["inspect", out, "--format", "json"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let info = try JSONSerialization.jsonObject(with: Data(inspect.stdout.utf8)) as? [String: Any]
        #expect((info?["layers"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["roads", "fornminnen"])
        #expect((info?["zooms"] as? [[String: Any]])?.compactMap { $0["zoom"] as? Int } == [10, 11, 12, 13])
        let largest = (info?["largestTiles"] as? [[String: Any]])?.first?["tile"] as? String
        let tile = try runKartpack(["inspect", out, "--tile", largest ?? "", "--wgs84", "--format", "json"])
        #expect(tile.status == 0, "\(tile.stderr)")
        #expect(tile.stdout.contains("\"coordinates\": \"wgs84\""))
        let missing = try runKartpack(["inspect", out, "--tile", "0/0/0"])
        #expect(missing.status == 64)
    }

    @Test func missingInputExits66AndPublishesNothing() throws {
        let dir = try TemporaryDirectory()
        let r = try runKartpack(["convert", dir.file("nope.shp"), "-o", dir.file("x.mbtiles")])
        #expect(r.status == 66, "\(r.stderr)")
        #expect(r.stderr.contains("nope.shp"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.mbtiles")))
    }

    @Test func aSourceCRSPROJCannotUseIsAUsageErrorSaidOnce() throws {
        let dir = try TemporaryDirectory()
        let shp = sample("vagar")
        for command in [["convert", shp], ["import", (shp as NSString).deletingLastPathComponent]] {
            let r = try runKartpack(command + ["-o", dir.file("x.pmtiles"), "--source-crs", "foo", "--quiet"])
            #expect(r.status == 64, "\(command[0]): \(r.stderr)")
            #expect(r.stderr.components(separatedBy: "not a coordinate reference system").count == 2, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.file("x.pmtiles")))
        }
        let bare = try runKartpack(["convert", shp, "-o", dir.file("y.pmtiles"), "--source-crs", "3006", "--quiet"])
        #expect(bare.status == 0, "\(bare.stderr)")
    }
}
