import Foundation
import KartpackTestSupport
import Testing

/// `kartpack package` publishes a complete catalog or nothing (issue 32), through the real binary on small
/// generated inputs: three square regions r1–r3 (1° each, WGS 84) and a point layer `pts`. A refused night exits
/// 65, names every cause on stderr and in the report, and leaves every byte of the folder as the night before.
@Suite struct PackageRefusalTests {
    static let wgs84 = Array(
        ("GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137.0,298.257223563]],"
            + "PRIMEM[\"Greenwich\",0.0],UNIT[\"Degree\",0.0174532925199433]]").utf8)

    /// The square of region `k` (0-based): x from 2k to 2k + 1, y from 0 to 1, clockwise as Shapefile outer rings.
    static func square(_ k: Int) -> ShapefileFixture.Shape {
        let x = Double(2 * k)
        return .polygon([[x, 0, x, 1, x + 1, 1, x + 1, 0, x, 0]])
    }

    /// A point inside region `k`, the `n`-th of it.
    static func inside(_ k: Int, _ n: Int = 0) -> (Double, Double) { (Double(2 * k) + 0.2 + 0.1 * Double(n), 0.5) }

    /// One folder per test: `regions.shp`, `pts.shp`, `plan.json` and the package folder `out`.
    struct Night {
        let dir: TemporaryDirectory
        var out: String { dir.file("out") }
        var plan: String { dir.file("plan.json") }

        init(source: String = "", more: String = "", top: String = "") throws {
            dir = try TemporaryDirectory()
            let plan = """
                { "version": 1,
                  "sources": [ { "path": "pts.shp", "layer": "pts"\(source) }\(more) ],
                  "tiles": { "minZoom": 0, "maxZoom": 3 },
                  "output": { "path": "nowhere/plan.pmtiles" }\(top) }
                """
            try Data(plan.utf8).write(to: URL(fileURLWithPath: self.plan))
        }

        /// Writes the regions (ids r1, r2, … by position).
        func regions(_ shapes: [ShapefileFixture.Shape], ids: [String]? = nil) throws {
            try Self.remove(dir.file("regions"))
            var f = ShapefileFixture(shapeType: .polygon, shapes: shapes)
            f.fields = [ShapefileFixture.Field("RID", "C", width: 8)]
            f.rows = (ids ?? shapes.indices.map { "r\($0 + 1)" }).map { [Array($0.utf8)] }
            f.prj = PackageRefusalTests.wgs84
            try f.write(to: dir.path, baseName: "regions")
        }

        /// Writes the point layer; `change` may break the file.
        func points(_ xy: [(Double, Double)], change: (inout ShapefileFixture) -> Void = { _ in }) throws {
            try Self.remove(dir.file("pts"))
            var f = ShapefileFixture(shapeType: .point, shapes: xy.map { .point($0.0, $0.1) })
            f.fields = [ShapefileFixture.Field("NAME", "C", width: 8)]
            f.rows = xy.indices.map { [Array("p\($0)".utf8)] }
            f.prj = PackageRefusalTests.wgs84
            change(&f)
            try f.write(to: dir.path, baseName: "pts")
        }

        static func remove(_ base: String) throws {
            for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
                try? FileManager.default.removeItem(atPath: "\(base).\(ext)")
            }
        }

        /// Runs `package` with the report at `r.json`.
        func run(_ extra: [String] = []) throws -> ProcessResult {
            try runKartpack(
                [
                    "package", plan, "--regions", dir.file("regions.shp"), "--id-field", "RID", "-o", out,
                    "--report", dir.file("r.json"), "--quiet", "--threads", "1",
                ] + extra)
        }

        /// The report of the last run.
        func report() throws -> [String: Any] {
            let data = try Data(contentsOf: URL(fileURLWithPath: dir.file("r.json")))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        /// The report's findings as (code, region, file, record).
        func findings() throws -> [[String: Any]] { (try report()["findings"] as? [[String: Any]]) ?? [] }

        /// Every file of the package folder (its generations included) and its bytes; each symbolic link as
        /// `NAME ->` with its target, and the bytes a reader gets through it as `NAME` (when it resolves).
        func snapshot() throws -> [String: Data] {
            var out: [String: Data] = [:]
            let fm = FileManager.default
            func walk(_ relative: String) throws {
                for name in try fm.contentsOfDirectory(atPath: self.out + relative) {
                    let r = relative + "/" + name
                    let path = self.out + r
                    switch try fm.attributesOfItem(atPath: path)[.type] as? FileAttributeType {
                    case .typeDirectory?: try walk(r)
                    case .typeSymbolicLink?:
                        out[r + " ->"] = Data(try fm.destinationOfSymbolicLink(atPath: path).utf8)
                        var isFolder: ObjCBool = false
                        if fm.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                            out[r] = try Data(contentsOf: URL(fileURLWithPath: path))
                        }
                    default: out[r] = try Data(contentsOf: URL(fileURLWithPath: path))
                    }
                }
            }
            try walk("")
            return out
        }

        /// The path of `name` in the folder's published generation (`.generations/<current>/name`): the file
        /// itself, where a test changes what was published (the top-level name is a link to it).
        func published(_ name: String) -> String {
            URL(fileURLWithPath: out + "/" + name).resolvingSymlinksInPath().path
        }

        /// The ids in `catalog.json`.
        func catalogIDs() throws -> [String] {
            let data = try Data(contentsOf: URL(fileURLWithPath: out + "/catalog.json"))
            let cat = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return ((cat["regions"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        }

        /// A first night of three regions, one point in each, plus `more`; returns the folder's bytes.
        func firstNight(more: [(Double, Double)] = []) throws -> [String: Data] {
            try regions((0..<3).map(PackageRefusalTests.square))
            let inside = PackageRefusalTests.inside
            try points([inside(0, 0), inside(1, 0), inside(2, 0)] + more)
            let r = try run()
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try catalogIDs() == ["r1", "r2", "r3"])
            return try snapshot()
        }

        /// Checks a refused night: exit 65, nothing changed, each code named on stderr and in the report.
        func expectRefused(
            _ r: ProcessResult, before: [String: Data], codes: [String],
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            #expect(r.status == 65, "\(r.stderr)", sourceLocation: sourceLocation)
            let after = try snapshot()
            #expect(after.keys.sorted() == before.keys.sorted(), sourceLocation: sourceLocation)
            for (name, bytes) in before {
                #expect(after[name] == bytes, "\(name) changed", sourceLocation: sourceLocation)
            }
            let report = try report()
            #expect(report["published"] as? Bool == false, sourceLocation: sourceLocation)
            #expect(report["exitCode"] as? Int == 65, sourceLocation: sourceLocation)
            let found = try findings().filter { $0["severity"] as? String == "error" }.compactMap {
                $0["code"] as? String
            }
            for code in codes {
                #expect(found.contains(code), "\(found)", sourceLocation: sourceLocation)
                #expect(r.stderr.contains("[\(code)]"), "\(r.stderr)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func aBrokenDBFStopsTheNightAndKeepsEveryPackage() throws {
        let night = try Night()
        let before = try night.firstNight()
        try night.points([Self.inside(0), Self.inside(1), Self.inside(2)]) { $0.dbfVersion = 0x04 }
        let r = try night.run()
        try night.expectRefused(r, before: before, codes: ["bad_dbf_header"])
        let finding = try #require(try night.findings().first { $0["code"] as? String == "bad_dbf_header" })
        #expect((finding["file"] as? String)?.hasSuffix("pts.shp") == true, "\(finding)")
        #expect(finding["layer"] as? String == "pts")
    }

    /// `scripts/nightly.sh package` (cron's wrapper) behaves as `run` does under it: a broken export exits 65 with
    /// the cause in the night's log and a report that says nothing was published, and the folder keeps its bytes.
    @Test func underNightlyShABrokenExportRefusesTheNightAsRunDoes() throws {
        let night = try Night()
        let before = try night.firstNight()
        try night.points([Self.inside(0), Self.inside(1), Self.inside(2)]) { $0.dbfVersion = 0x04 }
        let logs = night.dir.file("logs")
        let script = RepositoryPaths.root.appendingPathComponent("scripts/nightly.sh").path
        let r = try runShell(
            "KARTPACK=\"$KP\" KARTPACK_LOG_DIR='\(logs)' '\(script)' package '\(night.plan)' --regions "
                + "'\(night.dir.file("regions.shp"))' --id-field RID -o '\(night.out)' --threads 1")
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("failed with exit 65"), "\(r.stderr)")
        #expect(try night.snapshot() == before)
        let names = try FileManager.default.contentsOfDirectory(atPath: logs)
        let log = try #require(names.first { $0.hasPrefix("kartpack-package-") && $0.hasSuffix(".log") }, "\(names)")
        let text = try String(contentsOfFile: logs + "/" + log, encoding: .utf8)
        #expect(text.contains("[bad_dbf_header]"), "\(text)")
        let reportName = try #require(names.first { $0.hasPrefix("report-package-") }, "\(names)")
        let data = try Data(contentsOf: URL(fileURLWithPath: logs + "/" + reportName))
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(report["published"] as? Bool == false && report["exitCode"] as? Int == 65, "\(report)")
    }

    @Test func aSourceWithoutPrjStopsTheNight() throws {
        let night = try Night()
        let before = try night.firstNight()
        try night.points([Self.inside(0), Self.inside(1), Self.inside(2)]) { $0.prj = nil }
        let r = try night.run()
        try night.expectRefused(r, before: before, codes: ["missing_prj"])
    }

    @Test func underOnInputErrorSkipTheOtherLayersArePublishedAndTheRunStillExits65() throws {
        let night = try Night(more: #", { "path": "more.shp", "layer": "more" }"#, top: #", "onInputError": "skip""#)
        // A second layer with a point in every region, so that no region is empty without pts.
        var more = ShapefileFixture(shapeType: .point, shapes: (0..<3).map { .point(Double(2 * $0) + 0.7, 0.5) })
        more.fields = [ShapefileFixture.Field("NAME", "C", width: 8)]
        more.rows = (0..<3).map { [Array("m\($0)".utf8)] }
        more.prj = Self.wgs84
        try more.write(to: night.dir.path, baseName: "more")
        _ = try night.firstNight()
        try night.points([Self.inside(0), Self.inside(1), Self.inside(2)]) { $0.dbfVersion = 0x04 }
        let r = try night.run()
        #expect(r.status == 65, "\(r.stderr)")
        #expect(try night.report()["published"] as? Bool == true)
        let findings = try night.findings()
        #expect(findings.count == 1, "\(findings)")
        #expect(findings.first?["code"] as? String == "bad_dbf_header")
        #expect(findings.first?["severity"] as? String == "warning")
        #expect(try night.catalogIDs() == ["r1", "r2", "r3"])
        // Each package says which layer it lacks.
        let inspect = try runKartpack(["inspect", night.out + "/r1.pmtiles", "--format", "json"])
        #expect(inspect.stdout.contains("kartpack_missing_layers"), "\(inspect.stdout)")
    }

    /// Region r2 on the second night: a null shape, a ring without area, a NaN vertex, a bow tie.
    @Test(arguments: [
        ("null", "region_null"), ("flat", "region_zero_area"), ("nan", "region_non_finite"),
        ("bowtie", "region_invalid_polygon"),
    ])
    func aRegionThatCannotBeBuiltStopsTheNight(_ kind: String, _ code: String) throws {
        let night = try Night()
        let before = try night.firstNight()
        let broken: ShapefileFixture.Shape =
            switch kind {
            case "null": .null
            case "flat": .polygon([[2, 0, 2, 1, 2, 0.5, 2, 0]])
            case "nan": .polygon([[2, 0, 2, 1, .nan, 1, 3, 0, 2, 0]])
            default: .polygon([[2, 0, 3, 1, 3, 0, 2, 0.5, 2, 0]])
            }
        try night.regions([Self.square(0), broken, Self.square(2)])
        let r = try night.run()
        try night.expectRefused(r, before: before, codes: [code])
        #expect(r.stderr.contains("regions.shp: record 2: region 'r2'"), "\(r.stderr)")
        let finding = try #require(try night.findings().first { $0["code"] as? String == code })
        #expect(finding["file"] as? String == "regions.shp" && finding["record"] as? Int == 2, "\(finding)")
        #expect(finding["region"] as? String == "r2", "\(finding)")
        // `validate` names it before any night: the pipeline's regions section is read as `package` reads it.
        let section = #""regions": { "path": "regions.shp", "idField": "RID", "output": "pk" },"#
        let plan = try String(contentsOfFile: night.plan, encoding: .utf8).replacingOccurrences(
            of: #"{ "version": 1,"#, with: #"{ "version": 1, "# + section)
        let withRegions = night.dir.file("with-regions.json")
        try Data(plan.utf8).write(to: URL(fileURLWithPath: withRegions))
        let v = try runKartpack(["validate", withRegions])
        #expect(v.status == 78, "\(v.stdout)\(v.stderr)")
        #expect((v.stdout + v.stderr).contains("regions.shp: record 2: region 'r2': "), "\(v.stdout)\(v.stderr)")
        #expect((v.stdout + v.stderr).contains("[\(code)]"), "\(v.stdout)\(v.stderr)")
    }

    @Test func aRegionThatCannotBeBuiltOnTheFirstNightPublishesNothing() throws {
        let night = try Night()
        try night.regions([Self.square(0), .null, Self.square(2)])
        try night.points([Self.inside(0), Self.inside(2)])
        let r = try night.run()
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("[region_null]"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: night.out + "/catalog.json"))
        #expect(try night.snapshot().isEmpty)
    }

    @Test func aRegionLeavesTheCatalogOnlyWithTheUsersWord() throws {
        let night = try Night()
        let before = try night.firstNight()
        // r3 is gone from the region file.
        try night.regions([Self.square(0), Self.square(1)])
        let gone = try night.run()
        try night.expectRefused(gone, before: before, codes: ["region_removed"])
        #expect(
            gone.stderr.contains("region 'r3' is in the previous catalog but is not in regions.shp"), "\(gone.stderr)")
        #expect(try night.findings().first?["region"] as? String == "r3")

        // r3 is still a region but holds no feature.
        try night.regions((0..<3).map(Self.square))
        try night.points([Self.inside(0), Self.inside(1)])
        let empty = try night.run()
        try night.expectRefused(empty, before: before, codes: ["region_removed"])
        #expect(empty.stderr.contains("region 'r3' is in the previous catalog but holds no feature"), "\(empty.stderr)")

        // With --allow-removals the region goes, its file too.
        let allowed = try night.run(["--allow-removals"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try night.catalogIDs() == ["r1", "r2"])
        #expect(!FileManager.default.fileExists(atPath: night.out + "/r3.pmtiles"))
        #expect(try night.report()["removed"] as? [String] == ["r3"])
    }

    @Test func thePipelineCanAllowRemovals() throws {
        let night = try Night(
            top: #", "regions": { "path": "regions.shp", "idField": "RID", "output": "out", "allowRemovals": true }"#)
        _ = try night.firstNight()
        try night.regions([Self.square(0), Self.square(1)])
        let r = try runKartpack(["package", night.plan, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try night.catalogIDs() == ["r1", "r2"])
    }

    @Test func minFeaturesHoldsForTheWholeCatalog() throws {
        let night = try Night(source: #", "minFeatures": 4"#)
        try night.regions((0..<3).map(Self.square))
        try night.points([Self.inside(0), Self.inside(1), Self.inside(2)])
        let r = try night.run()
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("catalog: sources[0] (pts) has 3 features, fewer than minFeatures 4"), "\(r.stderr)")
        #expect(try night.snapshot().isEmpty)
        // Four points in all (two in r1): published.
        try night.points([Self.inside(0), Self.inside(0, 1), Self.inside(1), Self.inside(2)])
        #expect(try night.run().status == 0)
    }

    @Test func maxShrinkHoldsForEachRegion() throws {
        let night = try Night(source: #", "maxShrink": 0.5"#)
        try night.regions((0..<3).map(Self.square))
        try night.points([Self.inside(0), Self.inside(0, 1), Self.inside(0, 2), Self.inside(0, 3), Self.inside(1)])
        #expect(try night.run().status == 0)
        let before = try night.snapshot()
        // r1 loses 3 of its 4 points (75 %), while the catalog loses only 2 of 5 (40 %, r3 gains one).
        try night.points([Self.inside(0), Self.inside(1), Self.inside(2)])
        let r = try night.run()
        try night.expectRefused(r, before: before, codes: ["layer_shrank"])
        #expect(
            r.stderr.contains("region 'r1': sources[0] (pts) has 1 features, the previous package 4"), "\(r.stderr)")
        #expect(!r.stderr.contains("catalog:"), "\(r.stderr)")
        #expect(!r.stderr.contains("region 'r2'"), "\(r.stderr)")
    }

    @Test func maxShrinkHoldsForTheCatalogWhenRegionsAreRemoved() throws {
        let night = try Night(source: #", "maxShrink": 0.5"#)
        let before = try night.firstNight()
        // r2 and r3 lose their only points: each is removed (allowed), no region shrinks, the catalog loses 2/3.
        try night.points([Self.inside(0)])
        let r = try night.run(["--allow-removals"])
        try night.expectRefused(r, before: before, codes: ["layer_shrank"])
        #expect(r.stderr.contains("catalog: sources[0] (pts) has 1 features"), "\(r.stderr)")
    }

    @Test func featuresOutsideEveryRegionAreCounted() throws {
        let night = try Night()
        // r3 is a triangle: (4.9, 0.9) lies in its box but outside it; (10, 10) and (20, 20) touch no box.
        try night.regions([Self.square(0), Self.square(1), .polygon([[4, 0, 4, 1, 5, 0, 4, 0]])])
        try night.points([Self.inside(0), Self.inside(1), Self.inside(2), (10, 10), (4.9, 0.9), (20, 20)])
        let r = try night.run()
        #expect(r.status == 0, "\(r.stderr)")
        let inputs = try #require(try night.report()["inputs"] as? [[String: Any]])
        let rejected = inputs.first?["rejected"] as? [String: Int]
        #expect(rejected?["outside_regions"] == 3, "\(inputs)")
        #expect(try night.report()["published"] as? Bool == true)
        #expect(try night.catalogIDs() == ["r1", "r2", "r3"])
    }
}
