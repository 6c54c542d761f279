import Foundation
import KartpackTestSupport
import Testing

/// The parts of `inspect --format json` that scripts rely on.
private struct Report: Decodable {
    struct Layer: Decodable {
        struct CRS: Decodable { var name: String; var epsg: Int?; var origin: String }
        struct Encoding: Decodable { var name: String; var origin: String }
        struct Field: Decodable { var name: String; var type: String; var width: Int; var decimals: Int }
        struct Message: Decodable { var code: String; var message: String; var count: Int }
        var name: String
        var records: Int
        var features: Int
        var skipped: [String: Int]
        var crs: CRS?
        var encoding: Encoding?
        var fields: [Field]
        var errors: [Message]
        var warnings: [Message]
    }
    var kartpack: String
    var layers: [Layer]
}

@Suite struct InspectCommandTests {
    private func copySample(_ layer: String, into dir: TemporaryDirectory, skipping: Set<String> = []) throws {
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] where !skipping.contains(ext) {
            let src = RepositoryPaths.sampleForest.appendingPathComponent("\(layer).\(ext)")
            try FileManager.default.copyItem(atPath: src.path, toPath: dir.file("\(layer).\(ext)"))
        }
    }

    @Test func sampleFolderJSONDescribesEveryLayer() throws {
        let r = try runKartpack(["inspect", RepositoryPaths.sampleForest.path, "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8))
        let names = report.layers.map(\.name)
        #expect(names == names.sorted())
        for expected in ["avdelningar", "fastigheter", "fornminnen", "hansyn", "kommuner", "vagar"] {
            #expect(names.contains(expected))
        }
        for layer in report.layers {
            #expect(layer.crs?.epsg == 3006, "\(layer.name)")
            #expect(layer.crs?.name == "SWEREF99 TM")
            #expect(layer.encoding?.name == "ISO-8859-1")
            #expect(layer.encoding?.origin == "cpg")
            #expect(layer.errors.isEmpty)
            #expect(layer.records == layer.features + layer.skipped.values.reduce(0, +))
        }
    }

    @Test func jsonOutputIsStableAcrossRuns() throws {
        let a = try runKartpack(["inspect", RepositoryPaths.sampleForest.path, "--format", "json"])
        let b = try runKartpack(["inspect", RepositoryPaths.sampleForest.path, "--format", "json"])
        #expect(a.status == 0)
        #expect(a.stdout == b.stdout)
    }

    @Test func textOutputNamesCRSAndEncoding() throws {
        let shp = RepositoryPaths.sampleForest.appendingPathComponent("hansyn.shp").path
        let r = try runKartpack(["inspect", shp])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("SWEREF99 TM (EPSG:3006)"))
        #expect(r.stdout.contains("ISO-8859-1 from cpg"))
        #expect(r.stdout.contains("TYP"))
    }

    @Test func missingPrjIsAnErrorUnlessOverridden() throws {
        let dir = try TemporaryDirectory()
        try copySample("fornminnen", into: dir, skipping: ["prj"])
        let shp = dir.file("fornminnen.shp")
        let r = try runKartpack(["inspect", shp, "--format", "json"])
        #expect(r.status == 65)
        let report = try JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8))
        #expect(report.layers.first?.crs == nil)
        #expect(report.layers.first?.errors.contains { $0.message.contains("--source-crs") } == true)

        let ok = try runKartpack(["inspect", shp, "--format", "json", "--source-crs", "EPSG:3006"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let okReport = try JSONDecoder().decode(Report.self, from: Data(ok.stdout.utf8))
        #expect(okReport.layers.first?.crs?.epsg == 3006)
        #expect(okReport.layers.first?.crs?.origin == "option")
    }

    @Test func encodingOptionOverridesTheCpg() throws {
        let dir = try TemporaryDirectory()
        try copySample("fastigheter", into: dir)
        let r = try runKartpack(["inspect", dir.file("fastigheter.shp"), "--format", "json", "--encoding", "UTF-8"])
        let report = try JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8))
        #expect(report.layers.first?.encoding?.name == "UTF-8")
        #expect(report.layers.first?.encoding?.origin == "option")
        // Latin-1 bytes read as UTF-8 are invalid: they are replaced and counted, never passed through unmarked.
        #expect(report.layers.first?.warnings.contains { $0.code == "invalid_utf8" } == true)
    }

    @Test func missingShxIsRebuiltAndReported() throws {
        let dir = try TemporaryDirectory()
        try copySample("vagar", into: dir, skipping: ["shx"])
        let full = try runKartpack([
            "inspect", RepositoryPaths.sampleForest.appendingPathComponent("vagar.shp").path, "--format", "json",
        ])
        let r = try runKartpack(["inspect", dir.file("vagar.shp"), "--format", "json"])
        #expect(r.status == 0, "\(r.stderr)")
        let a = try JSONDecoder().decode(Report.self, from: Data(full.stdout.utf8)).layers[0]
        let b = try JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8)).layers[0]
        #expect(a.records == b.records)
        #expect(a.features == b.features)
        #expect(b.warnings.contains { $0.code == "rebuilt_index" })
    }
}
