import Foundation
import KartpackCore
import KartpackTestSupport
import Styling
import Testing

@Suite struct ForestSheetTests {
    /// The sample's layers and DBF fields (SampleData/README.md; `ogrinfo -al -so`), typed as the Shapefile
    /// reader types them (N with decimals → double, L → logical, D → date).
    static let layers: [LayerSchema] = [
        schema(
            "fastigheter", .polygon,
            [("FASTIGHET", .string), ("AGARE", .string), ("AREAL_HA", .double), ("KOMMUN", .string)]),
        schema(
            "avdelningar", .polygon,
            [
                ("AVDNR", .integer), ("FASTIGHET", .string), ("BESTTYP", .string), ("AREAL", .double),
                ("ALDER", .integer), ("TRADSLAG", .string), ("INVDATUM", .date), ("CERTIFIER", .logical),
            ]),
        schema("hansyn", .polygon, [("TYP", .string), ("NAMN", .string), ("BESKRIVNIN", .string), ("AREAL", .double)]),
        schema("fornminnen", .point, [("RAA_NR", .string), ("TYP", .string), ("NAMN", .string)]),
        schema(
            "vagar", .lineString,
            [("KLASS", .integer), ("NAMN", .string), ("BELAGGNING", .string), ("BREDD", .double)]),
        schema("kommuner", .polygon, [("KOMMUNNAMN", .string), ("KOMMUNKOD", .string)]),
    ]

    static func schema(_ name: String, _ kind: GeometryKind, _ fields: [(String, FieldType)]) -> LayerSchema {
        LayerSchema(
            name: name, geometryKind: kind, fields: fields.map { FieldDefinition(name: $0.0, type: $0.1) }, crs: nil,
            bounds: nil, recordCount: 0, encoding: nil)
    }

    static func loadSheet() throws -> (Stylesheet?, [StyleDiagnostic]) {
        let url = RepositoryPaths.root.appendingPathComponent("SampleData/forest.kss")
        let text = try String(contentsOf: url, encoding: .utf8)
        return Stylesheet.parse(text, file: "forest.kss")
    }

    @Test func parsesLintsAndPassesItsExamples() throws {
        let (parsed, diagnostics) = try Self.loadSheet()
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let sheet = try #require(parsed)
        #expect(sheet.lint(layers: Self.layers).isEmpty, "\(sheet.lint(layers: Self.layers))")
        #expect(sheet.runExamples().isEmpty, "\(sheet.runExamples())")
        #expect(sheet.examples.count >= 30)
    }

    /// The field names hard-coded above are those in the DBF headers.
    @Test func hardCodedFieldsMatchTheDBFHeaders() throws {
        for layer in Self.layers {
            let url = RepositoryPaths.sampleForest.appendingPathComponent("\(layer.name).dbf")
            let bytes = [UInt8](try Data(contentsOf: url))
            var names: [String] = []
            var offset = 32
            while offset + 32 <= bytes.count, bytes[offset] != 0x0D {
                let raw = bytes[offset..<offset + 11].prefix { $0 != 0 }
                names.append(String(decoding: raw, as: UTF8.self))
                offset += 32
            }
            #expect(names == layer.fields.map(\.name), "\(layer.name)")
        }
    }

    @Test func everyHansynTypeHasItsOwnClassAndPattern() throws {
        let sheet = try #require(try Self.loadSheet().0)
        let classifier = StyleClassifier(sheet: sheet)
        let types = [
            "Natura2000", "Nationalpark", "Nyckelbiotop", "Naturvardsavtal", "Fornminne", "Biotopskydd", "Naturvarde",
            "Naturreservat",
        ]
        let styles = types.map {
            classifier.style(layer: "hansyn", properties: props(("TYP", .string($0))), zoom: 12)
        }
        #expect(Set(styles.compactMap(\.className)).count == types.count)
        #expect(styles.allSatisfy { $0.fillPattern != nil && $0.fill != nil && $0.label == "NAMN" })
        #expect(
            Set(sheet.examples.filter { $0.layer == "hansyn" }.compactMap { $0.properties["TYP"] }).count >= types.count
        )
    }
}
