import Foundation
import KartpackTestSupport
import Testing
@testable import ConvertEngine

@Suite struct ConverterTests {
    private var samples: [String] {
        ["avdelningar", "fastigheter", "fornminnen", "hansyn", "kommuner", "vagar"].map {
            RepositoryPaths.sampleForest.appendingPathComponent("\($0).shp").path
        }
    }

    @Test func sampleDataReconcilesAndEveryFeatureAppearsAtMaxZoom() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("forest.pmtiles")
        let report = try convert(samples, to: out, zooms: 10...14)
        #expect(report.exitCode == 0)
        let tiles = try decodeAll(out)
        let atMax = ids(in: tiles, zoom: 14)
        for input in report.inputs {
            #expect(input.records == input.written + input.rejected.values.reduce(0, +), "\(input.layer)")
            #expect(input.records > 0)
            #expect(atMax[input.layer] == Set((1...input.records).map(UInt64.init)), "\(input.layer)")
        }
        // Every tile is a valid MVT: version 2, extent 4096, no empty layers.
        for (_, tile) in tiles {
            #expect(!tile.layers.isEmpty)
            for l in tile.layers {
                #expect(l.version == 2)
                #expect(l.extent == 4096)
                #expect(!l.features.isEmpty)
            }
        }
    }

    @Test func outputIsIdenticalForOneAndTwoThreads() throws {
        let a = try TemporaryDirectory()
        let b = try TemporaryDirectory()
        for ext in ["pmtiles", "mbtiles"] {
            _ = try convert(samples, to: a.file("f.\(ext)"), zooms: 8...13, threads: 1)
            _ = try convert(samples, to: b.file("f.\(ext)"), zooms: 8...13, threads: 2)
            let x = try Data(contentsOf: URL(fileURLWithPath: a.file("f.\(ext)")))
            let y = try Data(contentsOf: URL(fileURLWithPath: b.file("f.\(ext)")))
            #expect(x == y, "\(ext)")
        }
    }

    @Test func mbtilesAndPMTilesHoldTheSameTiles() throws {
        let dir = try TemporaryDirectory()
        _ = try convert(samples, to: dir.file("f.pmtiles"), zooms: 9...12)
        _ = try convert(samples, to: dir.file("f.mbtiles"), zooms: 9...12)
        let p = try decodeAll(dir.file("f.pmtiles"))
        let m = try decodeAll(dir.file("f.mbtiles"))
        #expect(p.count == m.count)
        #expect(p == m)
    }

    @Test func refusesToOverwriteWithoutForceAndKeepsTheOldFile() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("f.pmtiles")
        try Data("old".utf8).write(to: URL(fileURLWithPath: out))
        #expect(throws: PipelineError.self) { _ = try convert([samples[2]], to: out, zooms: 10...12) }
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "old")
        _ = try convert([samples[2]], to: out, zooms: 10...12) { $0.force = true }
        #expect(try decodeAll(out).count > 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test func attributesArriveTypedAndNullsAreOmitted() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("f.pmtiles")
        _ = try convert([samples[0]], to: out, zooms: 12...12)
        var found = false
        for (_, tile) in try decodeAll(out) {
            for f in tile.layers[0].features {
                #expect(
                    f.properties["AVDNR"].map { if case .int = $0 { true } else { $0.numericValue != nil } } == true)
                if case .bool = f.properties["CERTIFIER"] { found = true }
                #expect(f.properties.values.allSatisfy { !$0.isNull })
                if case .string(let s)? = f.properties["FASTIGHET"] { #expect(!s.contains("\u{FFFD}")) }
            }
        }
        #expect(found)
    }

    @Test func tileLimitsThinWholeZoomsConsistentlyAndNeverAtMaxZoom() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("f.pmtiles")
        let report = try convert(samples, to: out, zooms: 9...13) { $0.maxTileBytes = 3000 }
        let tiles = try decodeAll(out)
        let dropped = report.zooms.filter { $0.zoom < 13 }.reduce(0) { $0 + $1.dropped.values.reduce(0, +) }
        #expect(dropped > 0)
        // Below max zoom every tile fits; a feature kept at z is kept at every higher zoom.
        for z in report.zooms where z.zoom < 13 { #expect(z.largestTileBytes <= 3000, "zoom \(z.zoom)") }
        var previous: [String: Set<UInt64>]?
        for z in 9...13 {
            let here = ids(in: tiles, zoom: z)
            if let previous {
                for (layer, set) in previous { #expect(set.isSubset(of: here[layer] ?? []), "zoom \(z) \(layer)") }
            }
            previous = here
        }
        // All features at max zoom.
        for input in report.inputs { #expect(ids(in: tiles, zoom: 13)[input.layer]?.count == input.written) }
    }

    @Test func rejectedInputIsReportedAndOthersStillPublish() throws {
        let dir = try TemporaryDirectory()
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(700000, 7000000)])
        f.prj = nil
        let noPrj = try f.write(to: dir.path, baseName: "noprj")
        let report = try convert([noPrj, samples[2]], to: dir.file("f.pmtiles"), zooms: 10...11)
        #expect(report.exitCode == 65)
        #expect(report.inputs.contains { $0.error?.contains("--source-crs") == true })
        #expect(try decodeAll(dir.file("f.pmtiles")).count > 0)
    }
}
