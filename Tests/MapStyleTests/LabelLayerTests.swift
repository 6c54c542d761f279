import Foundation
import GeometryAlgorithms
import KartpackCore
import MapStyle
import Testing
import TileArchive
/// The engine contract for labels once per feature: a point layer `L_labels` with one label point per polygon
/// feature (its id, attributes and class), in the one tile that contains it.
@Suite struct LabelLayerTests {
    /// Two tiles: the polygon `areas` id 1 crosses both; its label point lies in tile A only.
    func package(withLabels: Bool) throws -> (ScratchFolder, String) {
        let dir = try ScratchFolder()
        let path = dir.file("labels.pmtiles")
        let props: [(String, PropertyValue)] = [("class", .string("plain")), ("NAMN", .string("Vännäs"))]
        var layersA: [(String, [TestFeature])] = [
            (
                "areas",
                [TestFeature(id: 1, type: .polygon, geometry: [square(3000, 1000, 4176, 2000)], properties: props)]
            )
        ]
        if withLabels {
            layersA.append(
                (
                    "areas_labels",
                    [TestFeature(id: 1, type: .point, geometry: [[TilePoint(3500, 1500)]], properties: props)]
                ))
        }
        let a = try encodeTestTile(layersA)
        let b = try encodeTestTile([
            (
                "areas",
                [TestFeature(id: 1, type: .polygon, geometry: [square(-80, 1000, 1000, 2000)], properties: props)]
            )
        ])
        let summary = runSummary([("areas", "polygon", [("plain", 1)])])
        var vectorLayers = [
            VectorLayerInfo(
                id: "areas", fields: [.init(name: "NAMN", type: .string), .init(name: "class", type: .string)])
        ]
        if withLabels {
            vectorLayers.append(
                VectorLayerInfo(
                    id: "areas_labels",
                    fields: [.init(name: "NAMN", type: .string), .init(name: "class", type: .string)]))
        }
        let metadata = ArchiveMetadata(
            name: "labels", minZoom: 3, maxZoom: 3, vectorLayers: vectorLayers, extra: [("kartpack", .string(summary))])
        let w = try PMTilesWriter(path: path)
        for (t, bytes) in [(tileA, a), (tileB, b)] { try w.write(z: t.z, x: t.x, y: t.y, data: bytes) }
        _ = try w.finish(metadata: metadata)
        return (dir, path)
    }

    let sheet = "areas { class: plain; fill: #c8e6c9; label: NAMN; text-size: 13; }"

    @Test func polygonLabelsComeFromTheLabelLayer() throws {
        let (dir, path) = try package(withLabels: true)
        let parsed = try parseSheet(sheet)
        var options = StyleExportOptions()
        options.baseURL = "http://127.0.0.1:1/"
        let result = try StyleExport.write(
            sheet: parsed, packagePath: path, stylePath: dir.file("style.json"), options: options)
        #expect(result.issues.isEmpty)
        #expect(!result.warnings.contains { $0.contains("_labels") })
        let style = try StyleJSON.parse(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir.file("style.json"))), as: UTF8.self))
        let layers = style["layers"]?.arrayValue ?? []
        // No style layer draws the label layer as a polygon layer; the label reads it.
        #expect(layers.compactMap { $0["source-layer"]?.stringValue } == ["areas", "areas_labels"])
        let label = try #require(layers.last)
        #expect(label["type"] == .string("symbol"))
        #expect(label["layout"]?["symbol-placement"] == nil && label["layout"]?["text-anchor"] == nil)
        // The preview of both tiles draws the name once, at the label point.
        let a = SphericalMercator.bounds(of: tileA)
        let b = SphericalMercator.bounds(of: tileB)
        let sw = SphericalMercator.unproject(x: a.minX, y: a.minY)
        let ne = SphericalMercator.unproject(x: b.maxX, y: b.maxY)
        let box = Bounds(minX: sw.longitude, minY: sw.latitude, maxX: ne.longitude, maxY: ne.latitude)
        let preview = try SVGPreview.preview(package: path, sheet: parsed, area: .bbox(box, zoom: 3))
        let svg = try parseSVG(preview.svg)
        #expect(svg.texts == ["Vännäs"])
        #expect(preview.svg.contains("x=\"437.5\""))  // 3500 / 4096 × 512
    }

    @Test func withoutTheLabelLayerLabelsArePerPieceWithAWarning() throws {
        let (dir, path) = try package(withLabels: false)
        let result = try StyleExport.write(
            sheet: try parseSheet(sheet), packagePath: path, stylePath: dir.file("style.json"),
            options: {
                var o = StyleExportOptions()
                o.baseURL = "http://127.0.0.1:1/"
                return o
            }())
        #expect(result.warnings.contains { $0.contains("no areas_labels layer") })
    }
}
