import Foundation
import KartpackTestSupport
import Testing

@Suite struct ImportCommandTests {
    /// Copies a sample layer into `folder` under `name` with the given extension case.
    private func copyLayer(_ layer: String, to folder: String, name: String, upper: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            let src = RepositoryPaths.sampleForest.appendingPathComponent("\(layer).\(ext)").path
            try FileManager.default.copyItem(atPath: src, toPath: "\(folder)/\(name).\(upper ? ext.uppercased() : ext)")
        }
    }

    /// Makes a zip with Python's zipfile (independent of our reader); `entries` maps names to file paths or bytes.
    private func zip(_ out: String, _ script: String) throws {
        let r = try runProcess(
            "/usr/bin/python3",
            [
                "-c",
                "import zipfile, sys\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\n" + script
                    + "\nz.close()", out,
            ])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func importsAFolderWithNestedMixedCaseSetsAndABadOne() throws {
        let dir = try TemporaryDirectory()
        let export = dir.file("export")
        try copyLayer("vagar", to: export + "/Data", name: "vagar")
        try copyLayer("fornminnen", to: export + "/Data/Sub", name: "Fornminnen", upper: true)
        // A set without .prj: rejected, so nothing is published by default; with --allow-partial the others are.
        try copyLayer("hansyn", to: export + "/broken", name: "hansyn")
        try FileManager.default.removeItem(atPath: export + "/broken/hansyn.prj")
        let out = dir.file("x.pmtiles")
        let refused = try runKartpack(["import", export, "-o", out, "--max-zoom", "12"])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stdout.contains("REJECTED: missing_prj"))
        // Every set found is in the table, also those the stopped build did not read.
        for set in ["Data/vagar.shp", "Data/Sub/Fornminnen.SHP"] {
            #expect(refused.stdout.contains(set), "\(set): \(refused.stdout)")
        }
        #expect(refused.stderr.contains("broken/hansyn.shp"), "\(refused.stderr)")
        #expect(refused.stderr.contains("nothing was published"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let r = try runKartpack([
            "import", export, "-o", out, "--max-zoom", "12", "--report", dir.file("r.json"), "--allow-partial",
        ])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stdout.contains("Data/Sub/Fornminnen.SHP"))
        #expect(r.stdout.contains("REJECTED: missing_prj"))
        let info = try runKartpack(["inspect", out, "--format", "json"])
        #expect(info.status == 0)
        #expect(info.stdout.contains("\"Fornminnen\"") && info.stdout.contains("\"vagar\""))
        // Attributes came through the mixed-case .DBF.
        #expect(info.stdout.contains("RAA_NR"))
    }

    @Test func cleanExportExitsZero() throws {
        let dir = try TemporaryDirectory()
        try copyLayer("vagar", to: dir.file("e"), name: "vagar")
        let r = try runKartpack(["import", dir.file("e"), "-o", dir.file("x.mbtiles"), "--max-zoom", "11"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func importsAZipAndLeavesNoTemporaryFiles() throws {
        let dir = try TemporaryDirectory()
        try copyLayer("fornminnen", to: dir.file("src"), name: "fornminnen")
        let zipPath = dir.file("export.zip")
        try zip(
            zipPath,
            """
            import os
            for f in sorted(os.listdir('\(dir.file("src"))')):
                z.write(os.path.join('\(dir.file("src"))', f), 'deliveries/2026/' + f)
            """)
        let tmp = dir.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let r = try runKartpack(["import", zipPath, "-o", dir.file("x.pmtiles"), "--max-zoom", "12", "--temp-dir", tmp])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("deliveries/2026/fornminnen.shp"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
    }

    @Test func zipSlipIsRefused() throws {
        let dir = try TemporaryDirectory()
        let zipPath = dir.file("evil.zip")
        try zip(zipPath, "z.writestr('../../evil.shp', b'x' * 200)\nz.writestr('ok.txt', b'hello')")
        let r = try runKartpack(["import", zipPath, "-o", dir.file("x.pmtiles")])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.contains("evil.shp"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.pmtiles")))
        #expect(!FileManager.default.fileExists(atPath: (dir.path as NSString).deletingLastPathComponent + "/evil.shp"))
    }

    @Test func zipBombIsRefused() throws {
        let dir = try TemporaryDirectory()
        let zipPath = dir.file("bomb.zip")
        try zip(zipPath, "z.writestr('big.dbf', b'\\0' * (60 * 1024 * 1024))")
        let r = try runKartpack(["import", zipPath, "-o", dir.file("x.pmtiles")])
        #expect(r.status == 65, "\(r.stderr)")
        #expect(r.stderr.lowercased().contains("ratio") || r.stderr.lowercased().contains("limit"))
    }
}
