import Foundation
import KartpackTestSupport
import Testing

/// The pipeline's `regions` section through the real binary: `package PIPELINE.json` without flags (flags
/// override), `validate` reporting every problem of the section in one pass, `--dry-run` naming new, changed,
/// up-to-date and removed regions; and `--clip` checked like the other inputs on `convert` and `import`.
@Suite struct PackageSectionTests {
    let base = PackageCommandTests()

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func sectionBuildsWithoutFlagsAndFlagsOverrideIt() throws {
        let dir = try TemporaryDirectory()
        let plan = try base.setUp(
            dir,
            extra: """
                , "regions": { "path": "data/props.shp", "idField": "PID", "nameField": "FASTIGHET",
                               "filter": "[PID != \\"p9\\"]", "buffer": 25, "maxZoom": 12, "output": "out" }
                """)
        let out = dir.file("out")
        let dry = try runKartpack(["package", plan, "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("8 regions would be built (8 new, 0 changed)"), "\(dry.stdout)")
        #expect(dry.stdout.contains("p1\tnew"), "\(dry.stdout)")
        #expect(!FileManager.default.fileExists(atPath: out))

        let r = try runKartpack(["package", plan, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let list = try base.regions(out)
        #expect(list.count == 8)
        #expect(list.allSatisfy { $0["maxZoom"] as? Int == 12 })
        #expect(list.first { $0["id"] as? String == "p1" }?["name"] as? String != "p1")

        // The same values as flags give the same fingerprints: nothing to rebuild.
        let flags = try runKartpack([
            "package", plan, "--regions", dir.file("data/props.shp"), "--id-field", "PID", "--name-field", "FASTIGHET",
            "--where", "[PID != \"p9\"]", "--buffer", "25", "--max-zoom", "12", "-o", out, "--dry-run",
        ])
        #expect(flags.status == 0, "\(flags.stderr)")
        #expect(flags.stdout.contains("0 regions would be built"), "\(flags.stdout)")
        #expect(flags.stdout.contains("8 are up to date"), "\(flags.stdout)")

        // A flag overrides the section: a larger buffer changes every region, dropping the filter adds p9, and a
        // narrower filter removes regions (which the night would refuse without --allow-removals: exit 65).
        let wider = try runKartpack(["package", plan, "--buffer", "40", "--where", "[PID != \"p1\"]", "--dry-run"])
        #expect(wider.status == 65, "\(wider.stderr)")
        #expect(
            wider.stderr.contains("region 'p1' is in the previous catalog") && wider.stderr.contains("[region_removed]")
        )
        #expect(wider.stdout.contains("8 regions would be built (1 new, 7 changed)"), "\(wider.stdout)")
        #expect(wider.stdout.contains("p9\tnew") && wider.stdout.contains("p1\tremoved"), "\(wider.stdout)")
        #expect(try base.regions(out).count == 8)
        let elsewhere = try runKartpack(["package", plan, "-o", dir.file("other"), "--quiet"])
        #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
        #expect(try base.regions(dir.file("other")).count == 8)
    }

    @Test func withoutSectionOrFlagsTheCommandSaysWhatIsMissing() throws {
        let dir = try TemporaryDirectory()
        let plan = try base.setUp(dir)
        let r = try runKartpack(["package", plan, "--id-field", "PID", "-o", dir.file("out")])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--regions REGIONS.shp, or a regions section"), "\(r.stderr)")
    }

    @Test func validateReportsEveryProblemOfTheSectionWithLineAndColumn() throws {
        let dir = try TemporaryDirectory()
        let bad = dir.file("data/bad.shp")
        _ = try base.setUp(dir, name: "first.json")
        // Record 1 holds a space, records 2 and 3 share an id.
        let g = try runProcess(
            "/usr/bin/ogr2ogr",
            [
                "-q", "-dialect", "sqlite", "-nln", "bad", bad, dir.file("data/fastigheter.shp"), "-sql",
                "SELECT geometry, CASE WHEN rowid = 0 THEN 'a b' WHEN rowid < 3 THEN 'dup' ELSE 'r' || rowid END AS RID"
                    + " FROM fastigheter",
            ])
        #expect(g.status == 0, "\(g.stderr)")
        let plan = try base.setUp(
            dir,
            extra: """
                ,
                  "regions": { "path": "data/bad.shp", "idField": "RID", "nameField": "NAMN",
                               "filter": "[RID = ", "output": "missing/out", "sign": "no.key" }
                """)
        let v = try runKartpack(["validate", plan])
        #expect(v.status == 78, "\(v.stdout)\(v.stderr)")
        let text = v.stdout
        for needle in [
            "regions.sign: no.key:",
            "regions.output: the folder missing does not exist", "regions.filter:",
            "regions.nameField: NAMN is not a field of bad.shp", "record 1: region id 'a b' holds a character",
            "record 3: region id 'dup' is already used by record 2",
        ] {
            #expect(text.contains(needle), "\(needle) missing in \(text)")
        }
        // Every issue has its place in the file (the section is on lines 6 and 7).
        let issues = text.split(separator: "\n").filter { $0.hasPrefix("error:") }
        #expect(issues.count == 6, "\(text)")
        #expect(issues.allSatisfy { $0.contains("plan.json:6:") || $0.contains("plan.json:7:") }, "\(text)")
        #expect(!text.contains("output.path"), "package does not write output.path: \(text)")

        // A line layer is refused as regions; and package stops on the section's problems too.
        let lines = try base.setUp(
            dir, extra: #", "regions": { "path": "data/vagar.shp", "idField": "X", "output": "o" }"#, name: "lines.json"
        )
        let l = try runKartpack(["validate", lines])
        #expect(l.status == 78)
        #expect(
            l.stdout.contains("vagar.shp holds lineString records; regions must be polygons")
                || l.stdout.contains("vagar.shp holds multiLineString records; regions must be polygons"), "\(l.stdout)"
        )
        let p = try runKartpack(["package", plan])
        #expect(p.status == 78 || p.status == 64 || p.status == 66, "\(p.stderr)")
    }

    @Test func clipFileIsAnInputOfConvertAndImport() throws {
        let dir = try TemporaryDirectory()
        _ = try base.setUp(dir)
        let stands = dir.file("data/avdelningar.shp")
        let missing = try runKartpack(["convert", stands, "--clip", dir.file("nope.shp"), "-o", dir.file("x.pmtiles")])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("nope.shp: no such file or folder (--clip)"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.pmtiles")))

        // No output may be the clip file or one of its sidecars (the report here; a package must end in .pmtiles).
        let clip = dir.file("data/kommuner.shp")
        let dbf = dir.file("data/kommuner.dbf")
        let before = try Data(contentsOf: URL(fileURLWithPath: dbf))
        let same = try runKartpack([
            "convert", stands, "--clip", clip + ":[KOMMUNKOD = \"2404\"]", "-o", dir.file("x.pmtiles"), "--report", dbf,
        ])
        #expect(same.status == 64, "\(same.stderr)")
        #expect(same.stderr.contains("kommuner.dbf"), "\(same.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dbf)) == before)
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.pmtiles")))

        let export = dir.file("export.zip")
        let z = try runProcess(
            "/usr/bin/zip",
            [
                "-q", "-j", export, stands, dir.file("data/avdelningar.shx"),
                dir.file("data/avdelningar.dbf"), dir.file("data/avdelningar.prj"),
            ])
        #expect(z.status == 0, "\(z.stderr)")
        let im = try runKartpack(["import", export, "--clip", dir.file("nope.shp"), "-o", dir.file("y.pmtiles")])
        #expect(im.status == 66, "\(im.stderr)")
        #expect(im.stderr.contains("(--clip)"), "\(im.stderr)")
        let imSame = try runKartpack(["import", export, "--clip", clip, "-o", dir.file("y.pmtiles"), "--report", clip])
        #expect(imSame.status == 64, "\(imSame.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dbf)) == before)
        #expect(FileManager.default.fileExists(atPath: clip))

        // With a good clip file both run.
        let ok = try runKartpack(["import", export, "--clip", clip, "-o", dir.file("y.pmtiles"), "--quiet"])
        #expect(ok.status == 0, "\(ok.stderr)")
    }
}
