import Foundation
import KartpackCore
import KartpackJSON
import KartpackTestSupport
import Styling
import TileArchive
import Testing
import VectorTile

@testable import ConvertEngine
@testable import PipelineFiles

@Suite struct StyledConvertTests {
    private func sample(_ l: String) -> String { RepositoryPaths.sampleForest.appendingPathComponent("\(l).shp").path }

    private func sheet(_ text: String) throws -> Stylesheet {
        let (s, d) = Stylesheet.parse(text, file: "test.kss")
        #expect(!d.contains { $0.severity == .error }, "\(d)")
        return try #require(s)
    }

    /// Class of every feature per layer at one zoom (first occurrence across tiles).
    private func classes(_ tiles: [TileCoordinate: DecodedTile], zoom: Int) -> [String: [UInt64: String?]] {
        var out: [String: [UInt64: String?]] = [:]
        for (t, tile) in tiles where t.z == zoom {
            for l in tile.layers {
                for f in l.features {
                    guard let id = f.id else { continue }
                    var c: String?
                    if case .string(let s)? = f.properties["class"] { c = s }
                    out[l.name, default: [:]][id] = c
                }
            }
        }
        return out
    }

    @Test func sampleStylesheetClassesArriveInTilesWithReportedCounts() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("f.pmtiles")
        let (sheet, _) = try StyleLoader.load(
            path: RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss").path)
        let inputs = ["avdelningar", "fastigheter", "fornminnen", "hansyn", "kommuner", "vagar"].map(sample)
        let report = try convert(inputs, to: out, zooms: 9...14) { $0.style = sheet }
        let tiles = try decodeAll(out)
        let atMax = classes(tiles, zoom: 14)
        for input in report.inputs {
            var counted: [String: Int] = [:]
            for (_, c) in atMax[input.layer] ?? [:] { if let c { counted[c, default: 0] += 1 } }
            #expect(counted == input.classes, "\(input.layer)")
            #expect(input.records == input.written + input.rejected.values.reduce(0, +))
        }
        // min-zoom 11 for minor roads: none below, all at 11.
        let minor = Set((atMax["vagar"] ?? [:]).filter { $0.value == "minor-road" }.keys)
        #expect(!minor.isEmpty)
        for z in 9...10 { #expect(Set((classes(tiles, zoom: z)["vagar"] ?? [:]).keys).isDisjoint(with: minor)) }
        #expect(minor.isSubset(of: Set((classes(tiles, zoom: 11)["vagar"] ?? [:]).keys)))
        // keep: hansyn keeps TYP, NAMN, AREAL (and gets class).
        for (_, tile) in tiles {
            for f in tile.layer(named: "hansyn")?.features ?? [] {
                #expect(Set(f.properties.keys).isSubset(of: ["TYP", "NAMN", "AREAL", "class"]))
            }
        }
        // The metadata lists the classes per layer.
        let meta = try #require(try PMTilesReaderShim.metadata(out))
        #expect(meta.contains("\"natura2000\""))
    }

    @Test func descendantSelectorMatchesABruteForceReference() throws {
        let dir = try TemporaryDirectory()
        // Two big parcels; 40 small stands on a grid, some inside parcel A (owner "Södra"), some in B, some outside.
        func square(_ x: Double, _ y: Double, _ s: Double) -> [Double] {
            [x, y, x, y + s, x + s, y + s, x + s, y, x, y]
        }
        var parcels = ShapefileFixture(
            shapeType: .polygon,
            shapes: [
                .polygon([square(700_000, 7_000_000, 1_000)]),
                .polygon([square(702_000, 7_000_000, 1_000)]),
            ])
        parcels.fields = [ShapefileFixture.Field("AGARE", "C", width: 20)]
        parcels.rows = [[ShapefileFixture.latin1("Södra Skog")], [ShapefileFixture.latin1("Per Öberg")]]
        parcels.cpg = Array("ISO-8859-1".utf8)
        parcels.prj = sweref99TM
        let parcelPath = try parcels.write(to: dir.path, baseName: "fastigheter")
        var stands: [ShapefileFixture.Shape] = []
        var expected: [UInt64: Bool] = [:]
        for i in 0..<40 {
            let x = 699_500 + Double(i % 10) * 350, y = 7_000_100 + Double(i / 10) * 250
            stands.append(.polygon([square(x, y, 100)]))
            let cx = x + 50, cy = y + 50
            expected[UInt64(i + 1)] = cx > 700_000 && cx < 701_000 && cy > 7_000_000 && cy < 7_001_000
        }
        var standFixture = ShapefileFixture(shapeType: .polygon, shapes: stands)
        standFixture.prj = sweref99TM
        let standPath = try standFixture.write(to: dir.path, baseName: "avdelningar")
        let style = try sheet(
            """
            avdelningar { class: stand; }
            fastigheter[AGARE ^= "Södra"] avdelningar { class: member-stand; }
            """)
        let out = dir.file("f.pmtiles")
        let report = try convert([parcelPath, standPath], to: out, zooms: 14...14) { $0.style = style }
        let got = classes(try decodeAll(out), zoom: 14)["avdelningar"] ?? [:]
        #expect(got.count == 40)
        for (id, inside) in expected { #expect(got[id] == (inside ? "member-stand" : "stand"), "stand \(id)") }
        #expect(report.inputs[1].classes["member-stand"] == expected.values.filter { $0 }.count)
    }

    @Test func excludeLayerRoutingAndZoomDependentClasses() throws {
        let dir = try TemporaryDirectory()
        let style = try sheet(
            """
            vagar { class: road; layer: roads; }
            vagar[zoom >= 13] { class: road-detail; }
            vagar[KLASS = 5] { exclude: true; }
            """)
        let out = dir.file("f.pmtiles")
        let report = try convert([sample("vagar")], to: out, zooms: 11...14) { $0.style = style }
        let input = report.inputs[0]
        #expect(input.rejected[.excludedByStyle, default: 0] > 0)
        #expect(input.records == input.written + input.rejected.values.reduce(0, +))
        let tiles = try decodeAll(out)
        #expect(tiles.values.allSatisfy { $0.layer(named: "vagar") == nil })
        let low = classes(tiles, zoom: 12)["roads"] ?? [:]
        let high = classes(tiles, zoom: 14)["roads"] ?? [:]
        #expect(!low.isEmpty && low.values.allSatisfy { $0 == "road" })
        #expect(high.count == input.written && high.values.allSatisfy { $0 == "road-detail" })
    }

    @Test func recordFilterKeepAndRenameApplyBeforeStyling() throws {
        let dir = try TemporaryDirectory()
        var input = ConvertInput(path: sample("hansyn"))
        let (filter, d) = AttributeFilterList.parse(#"[TYP = "Natura2000"]"#, file: "x")
        #expect(d.isEmpty)
        input.filter = filter
        input.keep = ["TYP", "NAMN"]
        input.rename = [("NAMN", "name")]
        var o = ConvertOptions(inputs: [input], output: dir.file("f.pmtiles"), format: .pmtiles)
        o.minZoom = 12
        o.maxZoom = 12
        let report = try Converter(options: o, diagnostics: DiagnosticSink()).run()
        #expect(report.inputs[0].written == 2)
        #expect(report.inputs[0].rejected[.filteredOut] == 14)
        for (_, tile) in try decodeAll(dir.file("f.pmtiles")) {
            for f in tile.layers[0].features { #expect(Set(f.properties.keys) == ["TYP", "name"]) }
        }
    }

    @Test func clipToRegionKeepsOnlyWhatIsInside() throws {
        let dir = try TemporaryDirectory()
        let (filter, _) = AttributeFilterList.parse(#"[KOMMUNNAMN = "Vännäs"]"#, file: "x")
        let out = dir.file("f.pmtiles")
        let report = try convert([sample("avdelningar"), sample("fornminnen")], to: out, zooms: 12...12) {
            $0.clip = ClipOptions(
                source: .polygons(path: sample("kommuner"), filter: filter, sourceCRS: nil), buffer: 0)
        }
        for input in report.inputs {
            #expect(input.records == input.written + input.rejected.values.reduce(0, +))
        }
        #expect(report.inputs.contains { ($0.rejected[.outsideRegion] ?? 0) > 0 })
        #expect(report.featuresWritten > 0)
        // The package's metadata counts the records inside the clip; the report also counts those clipped away.
        let text = try #require(try openTileArchive(path: out).metadata()["kartpack"]?.stringValue)
        let summary = try JSONParser.parse(text)
        for input in report.inputs {
            let inside = try #require(input.insideClip)
            #expect(inside.written == input.written)
            #expect(inside.records == inside.written + inside.rejected.values.reduce(0, +))
            #expect(inside.rejected[.outsideRegion] == nil && inside.records < input.records)
            let counted = summary["inputs"]?[input.layer]
            #expect(counted?["records"]?.intValue == Int64(inside.records))
            #expect(counted?["written"]?.intValue == Int64(inside.written))
        }
    }
}
