import KartpackCore
import Styling
import Testing

/// Parses a sheet that must have no diagnostics at all.
func parseClean(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Stylesheet {
    let (sheet, diagnostics) = Stylesheet.parse(text, file: "test.kss")
    #expect(diagnostics.isEmpty, "unexpected diagnostics: \(diagnostics)", sourceLocation: sourceLocation)
    return try #require(sheet, sourceLocation: sourceLocation)
}

/// The diagnostics of a sheet (which may or may not parse).
func diagnostics(of text: String) -> [StyleDiagnostic] {
    Stylesheet.parse(text, file: "t.kss").1
}

/// Properties from literal pairs.
func props(_ pairs: (String, PropertyValue)...) -> Properties {
    Properties(pairs)
}

/// The class the sheet gives a feature.
func classOf(
    _ sheet: Stylesheet, _ layer: String, _ properties: Properties = Properties(), zoom: Int = 14,
    inside: (AncestorSelectorID) -> Bool = { _ in false }
) -> String? {
    StyleClassifier(sheet: sheet).style(layer: layer, properties: properties, zoom: zoom, inside: inside).className
}
