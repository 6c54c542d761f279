import Foundation
import KartpackTestSupport
import Testing

/// `kartpack package --max-zoom auto` (issue 14) through the real binary on the sample forest plan by municipality:
/// one max zoom for every region, chosen from all the sources as `convert --max-zoom auto` chooses it, so each
/// region's package is still byte for byte what `convert --clip … --max-zoom auto` writes for that region.
@Suite struct PackageMaxZoomAutoTests {
    let plan = PackageCommandTests()

    private func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func sha256(_ path: String) throws -> String {
        String(try runProcess("/usr/bin/sha256sum", [path]).stdout.prefix(64))
    }

    @Test func flagChoosesOneMaxZoomForEveryRegionAsConvertDoes() throws {
        let dir = try TemporaryDirectory()
        let pipeline = try plan.setUp(dir)  // tiles 8-13: the flag overrides the 13
        let out = dir.file("out")
        let r = try runKartpack([
            "package", pipeline, "--regions", dir.file("data/kommuner.shp"), "--id-field", "KOMMUNKOD",
            "--name-field", "KOMMUNNAMN", "--max-zoom", "auto", "-o", out, "--report", dir.file("r.json"),
        ])
        #expect(r.status == 0, "\(r.stderr)")
        // The sample's median vertex spacing (44-48 m) is 8 tile units at z11 (docs/convert.md).
        #expect(r.stderr.contains("max zoom 11 chosen for every region: median vertex spacing"), "\(r.stderr)")
        let chosen = try #require(try json(dir.file("r.json"))["maxZoomChosen"] as? [String: Any])
        #expect(chosen["zoom"] as? Int == 11)
        #expect(chosen["basis"] as? String == "vertices")
        #expect((chosen["reason"] as? String)?.contains("at z11") == true, "\(chosen)")
        let regions = try #require(try json(out + "/catalog.json")["regions"] as? [[String: Any]])
        #expect(regions.count == 4)
        #expect(regions.allSatisfy { $0["minZoom"] as? Int == 8 && $0["maxZoom"] as? Int == 11 }, "\(regions)")

        // The same region by `convert --clip --max-zoom auto`: the same choice, byte for byte the same package.
        let data = dir.file("data")
        let single = dir.file("single.pmtiles")
        let c = try runKartpack(
            ["convert"] + PackageCommandTests.layers.map { "\(data)/\($0).shp" } + [
                "--style", dir.file("forest.kss"), "--min-zoom", "8", "--max-zoom", "auto", "--name", "Vännäs",
                "--attribution", "Synthetic", "--clip", "\(data)/kommuner.shp:[KOMMUNKOD = \"2460\"]", "-o", single,
            ])
        #expect(c.status == 0, "\(c.stderr)")
        #expect(c.stderr.contains("max zoom 11 chosen: median vertex spacing"), "\(c.stderr)")
        #expect(try sha256(single) == (try sha256(out + "/2460.pmtiles")))

        // A second run finds every region up to date (the chosen zoom is part of the fingerprint).
        let again = try runKartpack([
            "package", pipeline, "--regions", dir.file("data/kommuner.shp"), "--id-field", "KOMMUNKOD",
            "--name-field", "KOMMUNNAMN", "--max-zoom", "auto", "-o", out, "--quiet", "--report", dir.file("r2.json"),
        ])
        #expect(again.status == 0, "\(again.stderr)")
        let statuses = try #require(try json(dir.file("r2.json"))["regions"] as? [[String: Any]]).map {
            $0["status"] as? String
        }
        #expect(statuses == Array(repeating: "up-to-date", count: 4))
        #expect(!again.stderr.contains("max zoom"), "\(again.stderr)")  // --quiet
    }

    @Test func regionsSectionAutoAndAFlagOverridingIt() throws {
        let dir = try TemporaryDirectory()
        let section =
            #", "regions": { "path": "data/kommuner.shp", "idField": "KOMMUNKOD", "maxZoom": "auto", "#
            + #""output": "out", "filter": "[KOMMUNKOD = \"2460\"]" }"#
        let pipeline = try plan.setUp(dir, extra: section)
        let v = try runKartpack(["validate", pipeline])
        #expect(v.status == 0, "\(v.stdout)\(v.stderr)")
        let dry = try runKartpack(["package", pipeline, "--dry-run", "--report", dir.file("dry.json")])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stderr.contains("max zoom 11 chosen for every region"), "\(dry.stderr)")
        #expect((try json(dir.file("dry.json"))["maxZoomChosen"] as? [String: Any])?["zoom"] as? Int == 11)
        let r = try runKartpack(["package", pipeline, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let regions = try #require(try json(dir.file("out/catalog.json"))["regions"] as? [[String: Any]])
        #expect(regions.map { $0["maxZoom"] as? Int } == [11])
        // A number on the command line wins over the section's auto: no choice is made or reported.
        let fixed = try runKartpack(["package", pipeline, "--max-zoom", "9", "--report", dir.file("r.json")])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(!fixed.stderr.contains("max zoom"), "\(fixed.stderr)")
        #expect(try json(dir.file("r.json"))["maxZoomChosen"] == nil)
        let rebuilt = try #require(try json(dir.file("out/catalog.json"))["regions"] as? [[String: Any]])
        #expect(rebuilt.map { $0["maxZoom"] as? Int } == [9])
        // A misspelled section value is refused by validate.
        _ = try plan.setUp(dir, extra: section.replacingOccurrences(of: "\"auto\"", with: "\"highest\""))
        let bad = try runKartpack(["validate", pipeline])
        #expect(bad.status != 0)
        #expect((bad.stdout + bad.stderr).contains("expected an integer or \"auto\""), "\(bad.stdout)\(bad.stderr)")
    }
}
