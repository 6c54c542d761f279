import Foundation
import KartpackTestSupport
import Testing

/// Region and clip polygons given in 0–360° longitudes lie where features in that convention do (the wrap of
/// `ReprojectStage`): a region package keeps the features beyond 180°, and `convert --clip` keeps them too. Both
/// lost every such feature before (issue 32; issue 33's B1).
@Suite struct ZeroTo360RegionTests {
    /// Box `[w, e] × [s, n]` in degrees, clockwise as a Shapefile outer ring.
    static func box(_ w: Double, _ s: Double, _ e: Double, _ n: Double) -> ShapefileFixture.Shape {
        .polygon([[w, s, w, n, e, n, e, s, w, s]])
    }

    /// Regions r1 wholly beyond 180° (200–210°E), r2 across it (175–185°E), r3 in ordinary longitudes (10–20°E):
    /// all in one file in the 0–360° convention. Points at 205°E (as −155°), 182°E (as −178°), 178°E and 15°E.
    static func night() throws -> PackageRefusalTests.Night {
        let night = try PackageRefusalTests.Night()
        try night.regions([box(200, 0, 210, 1), box(175, 0, 185, 1), box(10, 0, 20, 1)])
        try night.points([(-155, 0.5), (-178, 0.5), (178, 0.5), (15, 0.5)])
        return night
    }

    @Test func aRegionPackageBeyond180KeepsItsFeatures() throws {
        let night = try Self.night()
        let r = try night.run()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try night.catalogIDs() == ["r1", "r2", "r3"])
        // Each region's package holds its points: r1 one, r2 two (on both sides of 180°), r3 one.
        for (id, count) in [("r1", 1), ("r2", 2), ("r3", 1)] {
            let q = try runKartpack([
                "query", night.out + "/\(id).pmtiles", "--bbox", "-180,-1,180,2", "--zoom", "3", "--layer", "pts",
            ])
            #expect(q.status == 0, "\(q.stderr)")
            let doc = try JSONSerialization.jsonObject(with: Data(q.stdout.utf8)) as? [String: Any]
            let features = doc?["features"] as? [[String: Any]] ?? []
            #expect(features.count == count, "\(id): \(q.stdout.prefix(400))")
        }
    }

    @Test func aClipRegionBeyond180KeepsTheFeaturesInside() throws {
        let night = try Self.night()
        let out = night.dir.file("clipped.pmtiles")
        let report = night.dir.file("clip.json")
        let clip = night.dir.file("regions.shp") + ":[RID = \"r1\"]"
        let r = try runKartpack([
            "convert", night.dir.file("pts.shp"), "--clip", clip, "-o", out, "--report", report, "--quiet",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report)))
        let input = ((doc as? [String: Any])?["inputs"] as? [[String: Any]])?.first
        #expect(input?["written"] as? Int == 1, "\(String(describing: input))")
    }
}

/// What is read before the read phase goes through the features' intake (`IntakeReader`, issue 33): a clip record
/// that cannot be projected is counted in a warning, never dropped unseen.
@Suite struct IntakeCommandTests {
    @Test func aClipRecordThatCannotBeProjectedIsCountedInAWarning() throws {
        let night = try PackageRefusalTests.Night()
        // r1 is a good square; r2 lies wholly beyond the pole (no Web Mercator for it), r3 has a latitude of 95°.
        try night.regions([
            PackageRefusalTests.square(0), ZeroTo360RegionTests.box(2, 86, 3, 89),
            ZeroTo360RegionTests.box(4, 0, 5, 95),
        ])
        try night.points([PackageRefusalTests.inside(0), PackageRefusalTests.inside(2)])
        let out = night.dir.file("clipped.pmtiles")
        let r = try runKartpack([
            "convert", night.dir.file("pts.shp"), "--clip", night.dir.file("regions.shp"), "-o", out,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let report = night.dir.file("clip.json")
        let again = try runKartpack([
            "convert", night.dir.file("pts.shp"), "--clip", night.dir.file("regions.shp"), "-o", out, "--force",
            "--report", report, "--quiet",
        ])
        #expect(again.status == 0, "\(again.stderr)")
        let text = try String(contentsOfFile: report, encoding: .utf8)
        #expect(text.contains("\"polygons_not_projected\""), "\(text.prefix(2000))")
        #expect(
            r.stderr.contains("2 polygon records cannot be projected to Web Mercator and are left out"), "\(r.stderr)")

        // `extract --region` reads the same file: the records it leaves out are warned, and when the asked region
        // is one of them the refusal says why.
        let regions = night.dir.file("regions.shp")
        let part = night.dir.file("part.pmtiles")
        let x = try runKartpack(["extract", out, "--region", regions + ":RID=r1", "-o", part])
        #expect(x.status == 0, "\(x.stderr)")
        #expect(x.stderr.contains("cannot be projected") && x.stderr.contains("[polygons_not_projected]"))
        let gone = try runKartpack(["extract", out, "--region", regions + ":RID=r3", "-o", part, "--force"])
        #expect(gone.status != 0 && gone.stderr.contains("no polygon in"), "\(gone.stderr)")
        #expect(gone.stderr.contains("2 polygon records cannot be projected"), "\(gone.stderr)")
    }
}
