import Foundation
import KartpackCore
import KartpackTestSupport
import Styling
import Testing
import TileArchive
import VectorTile

@testable import ConvertEngine

/// Regressions for the bugs the phases hid (issue "One engine whose phases are types").
@Suite struct PhaseSeamTests {
    /// An island spanning 179.5°E–179.5°W around 15°S, in WGS 84.
    private func island(_ dir: TemporaryDirectory) throws -> String {
        let ring = [179.5, -15.5, 179.5, -14.5, -179.5, -14.5, -179.5, -15.5, 179.5, -15.5]
        var f = ShapefileFixture(shapeType: .polygon, shapes: [.polygon([ring])])
        f.prj = wgs84Prj
        return try f.write(to: dir.path, baseName: "island")
    }

    @Test func aFeatureCrossingTheAntimeridianIsUnwrappedBeforeItIsClipped() throws {
        let dir = try TemporaryDirectory()
        let shp = try island(dir)
        let out = dir.file("clipped.pmtiles")
        let report = try convert([shp], to: out, zooms: 0...6) {
            $0.clip = ClipOptions(source: .bbox(Bounds(minX: 170, minY: -20, maxX: 180, maxY: -10)))
        }
        #expect(report.inputs[0].written == 1)
        #expect(report.inputs[0].repaired[.antimeridianSplit] == 1)
        // Only the part east of 179.5°E is inside the box: every vertex lies between 179.5° and 180°.
        let tiles = try decodeAll(out)
        var longitudes: [Double] = []
        for (t, tile) in tiles where t.z == 6 {
            for f in tile.layers.flatMap(\.features) {
                for ring in f.geometry.parts {
                    for p in ring {
                        let m = TileTransform(tile: t, extent: 4096).invert(x: Double(p.x), y: Double(p.y))
                        longitudes.append(SphericalMercator.unproject(x: m.x, y: m.y).longitude)
                    }
                }
            }
        }
        #expect(!longitudes.isEmpty)
        #expect(
            longitudes.allSatisfy { $0 > 179.49 && $0 < 180.01 }, "\(longitudes.min() ?? 0)…\(longitudes.max() ?? 0)")
        // The header bounds say where the data is, not its complement.
        let h = try PMTilesReader(path: out).header
        #expect(Double(h.minLonE7) / 1e7 > 179.49 && Double(h.maxLonE7) / 1e7 <= 180)
    }

    @Test func anUnclippedAntimeridianFeatureSpansTheWorldInTheBounds() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("whole.pmtiles")
        let report = try convert([try island(dir)], to: out, zooms: 0...4)
        #expect(report.inputs[0].repaired[.antimeridianSplit] == 1)
        let h = try PMTilesReader(path: out).header
        // Both copies are tiled; no bounds can say "wraps", so the box spans the world's width.
        #expect(h.minLonE7 == -1_800_000_000 && h.maxLonE7 == 1_800_000_000)
        let tiles = try decodeAll(out)
        #expect(tiles.keys.contains { $0.z == 4 && $0.x == 0 } && tiles.keys.contains { $0.z == 4 && $0.x == 15 })
    }

    @Test func anInputWithAnEmptyZoomRangeIsRejectedAloneNotTheRun() throws {
        let dir = try TemporaryDirectory()
        let a = try island(dir)
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(10, 10)])
        f.prj = wgs84Prj
        let b = try f.write(to: dir.path, baseName: "points")
        var options = ConvertOptions(
            inputs: [ConvertInput(path: a), ConvertInput(path: b)], output: dir.file("z.pmtiles"), format: .pmtiles)
        options.minZoom = 0
        options.maxZoom = 5
        options.inputs[1].minZoom = 8
        let report = try Converter(options: options, diagnostics: DiagnosticSink()).run()
        #expect(report.published)
        #expect(report.inputs.map(\.errorCode) == [nil, .emptyZoomRange])
        #expect(report.inputs[1].rejected == [.fileRejected: 1])
        #expect(report.exitCode == ExitCode.dataError.rawValue)
    }

    @Test func layerNamesAFolderOfOneShapefileAndRefusesAFolderOfSeveral() throws {
        let dir = try TemporaryDirectory()
        let one = dir.file("one")
        try FileManager.default.createDirectory(atPath: one, withIntermediateDirectories: true)
        var f = ShapefileFixture(shapeType: .point, shapes: [.point(10, 10)])
        f.prj = wgs84Prj
        _ = try f.write(to: one, baseName: "a")
        func run(_ folder: String) throws -> ConvertReport {
            var o = ConvertOptions(
                inputs: [ConvertInput(path: folder, layerName: "named")], output: dir.file("l.pmtiles"),
                format: .pmtiles)
            o.maxZoom = 4
            o.force = true
            return try Converter(options: o, diagnostics: DiagnosticSink()).run()
        }
        #expect(try run(one).inputs.map(\.layer) == ["named"])
        _ = try f.write(to: one, baseName: "b")
        #expect {
            try run(one)
        } throws: { error in
            (error as? PipelineError)?.exitCode == .usage && "\(error)".contains("holds 2 Shapefiles")
        }
    }

    @Test func descendantSelectorsOnAWholeFolderUseTheReadPhasesLayerNames() throws {
        // With a folder input, `--layer` is not applied to each set: the ancestor sets and the features agree.
        let dir = try TemporaryDirectory()
        let square = [10.0, 10, 10, 11, 11, 11, 11, 10, 10, 10]
        var parcels = ShapefileFixture(shapeType: .polygon, shapes: [.polygon([square])])
        parcels.prj = wgs84Prj
        _ = try parcels.write(to: dir.path, baseName: "parcels")
        var trees = ShapefileFixture(shapeType: .point, shapes: [.point(10.5, 10.5), .point(20, 20)])
        trees.prj = wgs84Prj
        _ = try trees.write(to: dir.path, baseName: "trees")
        let (sheet, diags) = Stylesheet.parse("trees { class: tree; }\nparcels trees { class: inside; }", file: "s.kss")
        #expect(diags.filter { $0.severity == .error }.isEmpty)
        let out = dir.file("d.pmtiles")
        var o = ConvertOptions(inputs: [ConvertInput(path: dir.path)], output: out, format: .pmtiles)
        o.maxZoom = 6
        o.style = sheet
        let report = try Converter(options: o, diagnostics: DiagnosticSink()).run()
        #expect(report.inputs.first { $0.layer == "trees" }?.classes == ["inside": 1, "tree": 1])
    }
}
