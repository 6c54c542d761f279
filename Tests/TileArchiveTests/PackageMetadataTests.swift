import KartpackJSON
import PMTiles
import Testing

/// `PackageMetadata`, the one reader of package metadata (KartpackKit, MapStyle, inspect and extract use it).
@Suite struct PackageMetadataTests {
    static func parse(_ text: String) throws -> PackageMetadata {
        PackageMetadata(parsing: try JSONParser.parse(text))
    }

    @Test func readsWhatKartpackWrites() throws {
        let summary =
            #"{\"layers\":{\"stands\":{\"features\":3,\"geometry\":\"polygon\","#
            + #"\"classes\":{\"spruce\":2,\"pine\":1},"#
            + #"\"classes_by_zoom\":{\"8\":{\"pine\":1},\"12\":{\"spruce\":2}}}}}"#
        let m = try Self.parse(
            """
            {"name": "forest", "attribution": "", "minzoom": "0", "maxzoom": 14, "bounds": "14.1,57.2,14.3,57.4",
             "center": [14.2, 57.3, 12],
             "vector_layers": [{"id": "stands", "fields": {"class": "String", "area": "Number", "x": "Blob"},
                                "minzoom": 0, "maxzoom": 14.0, "description": "Stands"}],
             "kartpack": "\(summary)"}
            """)
        #expect(m.warnings.isEmpty)
        #expect(m.name == "forest" && m.attribution == nil && m.minZoom == 0 && m.maxZoom == 14)
        #expect(m.bounds == GeoBounds(west: 14.1, south: 57.2, east: 14.3, north: 57.4))
        #expect(m.center == GeoCenter(longitude: 14.2, latitude: 57.3, zoom: 12))
        let layer = try #require(m.layers.first)
        #expect(layer.id == "stands" && layer.minZoom == 0 && layer.maxZoom == 14 && layer.description == "Stands")
        #expect(
            layer.fields.map(\.name) == ["class", "area", "x"]
                && layer.fields.map(\.type) == ["String", "Number", "Blob"])
        let run = try #require(m.runLayer("stands"))
        #expect(run.geometry == "polygon" && run.features == 3)
        #expect(run.classes?.map(\.name) == ["spruce", "pine"] && run.classes?.map(\.features) == [2, 1])
        #expect(run.classesByZoom?[8]?.map(\.name) == ["pine"] && run.classesByZoom?[12]?.first?.features == 2)
    }

    @Test func skipsWhatCannotBeUsedWithAWarningEach() throws {
        let m = try Self.parse(
            """
            {"minzoom": -1, "maxzoom": 31, "bounds": [10, 60, 5, 50], "center": "1,2",
             "vector_layers": [{"fields": {}}, {"id": ""}, {"id": "a", "minzoom": 2.5, "maxzoom": "x"}, {"id": "a"}],
             "kartpack": {"layers": {"a": {"classes": {"": 1, "ok": 2, "neg": -1, "half": 1.5},
                                           "classes_by_zoom": {"99": {}, "z": {}, "3": 7, "4": {"ok": 1}}}}}}
            """)
        #expect(m.minZoom == nil && m.maxZoom == nil && m.bounds == nil && m.center == nil)
        #expect(m.layers.map(\.id) == ["a"])
        #expect(m.layers[0].minZoom == nil && m.layers[0].maxZoom == nil)
        #expect(m.warnings.filter { $0 == "a vector_layers entry has no id" }.count == 2)
        #expect(m.warnings.contains("vector layer a is listed twice"))
        let run = try #require(m.runLayer("a"))
        #expect(run.classes?.map(\.name) == ["ok"])
        #expect(run.classesByZoom?.keys.sorted() == [4])
        #expect(m.warnings.filter { $0.hasPrefix("layer a: bad classes_by_zoom entry") }.count == 3)
    }

    @Test func anUnreadableOrMissingSummaryIsAWarningNotAFailure() throws {
        let bad = try Self.parse(#"{"vector_layers": [], "kartpack": "{not json"}"#)
        #expect(bad.runLayers.isEmpty && bad.warnings.contains { $0.hasPrefix("the kartpack metadata is not JSON") })
        let none = try Self.parse(#"{}"#)
        #expect(!none.hasVectorLayers)
        #expect(
            none.warnings == [
                "the metadata has no vector_layers",
                "the metadata has no kartpack run summary (geometry and classes unknown)",
            ])
        let number = try Self.parse(#"{"vector_layers": [], "kartpack": 5}"#)
        #expect(number.warnings == ["the kartpack metadata is neither a JSON string nor an object"])
    }

    @Test func aHostileSummaryIsReadInPart() throws {
        let members = (0..<(PackageMetadata.maxRunLayers + 5)).map { #""l\#($0)": {"features": 1}"# }
        let m = try Self.parse(
            #"{"vector_layers": [], "kartpack": {"layers": {"# + members.joined(separator: ",") + "}}}")
        #expect(m.runLayers.count == PackageMetadata.maxRunLayers)
        #expect(m.warnings.contains { $0.contains("lists \(PackageMetadata.maxRunLayers + 5) layers") })
    }
}
