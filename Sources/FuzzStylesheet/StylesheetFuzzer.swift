import FuzzSupport
import KartpackCore
import Styling

/// The stylesheet fuzz target: every input is `.kss` text (invalid UTF-8 replaced, as a file read would) for the
/// Styling parser, then rule compilation (`StyleClassifier`, `ClientCascade`) and evaluation of the rules against
/// fixed features — every filter kind, `=~` regular expressions (the Pike VM) included — at several zooms.
///
/// Invariants (a violation is a bug, not an answer):
/// - every diagnostic names the file, a code and a message, and a position inside the text (line 1 … lines + 1,
///   column ≥ 1); diagnostics are sorted by position; the sheet is nil exactly when one is an error;
/// - parsing is deterministic: the same text gives an equal sheet and equal diagnostics;
/// - evaluation is deterministic: two classifiers compiled from the sheet give equal styles for every feature and
///   zoom, and so does a matcher bound to the layer's fields (the workers' fast path) against by-name lookup;
/// - `@example` blocks run to the same diagnostics twice.
enum StylesheetFuzzer {
    static let file = "fuzz.kss"

    /// Layers with features whose attributes cover strings (ASCII, non-ASCII, empty), integers, doubles, booleans
    /// and nulls, named as the sample sheet and the hostile seeds name them.
    static let features: [(layer: String, fields: [FieldDefinition], properties: [Properties])] = {
        func layer(_ name: String, _ fields: [(String, FieldType)], _ rows: [[PropertyValue]])
            -> (String, [FieldDefinition], [Properties])
        {
            let defs = fields.map { FieldDefinition(name: $0.0, type: $0.1, width: 20, decimals: 0, nativeType: "C") }
            let props = rows.map { row in Properties(zip(fields.map(\.0), row).map { ($0, $1) }) }
            return (name, defs, props)
        }
        let text: [(String, FieldType)] = [
            ("NAME", .string), ("TYP", .string), ("KLASS", .integer), ("AREA", .double), ("CERTIFIER", .logical),
        ]
        return [
            layer(
                "avdelningar", text + [("BESTTYP", .string)],
                [
                    [.string("Gran 1"), .string("Barrskog"), .int(2), .double(3.5), .bool(true), .string("Barrskog")],
                    [.string(""), .null, .int(-7), .double(-0.0), .bool(false), .string("Lövskog")],
                    [.string("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"), .string("Myr"), .null, .null, .null, .null],
                ]),
            layer(
                "vagar", text + [("BELAGGNING", .string)],
                [
                    [.string("Skogsbilväg 4"), .string("väg"), .int(4), .double(1e300), .bool(true), .string("Grus")],
                    [.string("E4"), .string("Ståndort"), .int(Int64.max), .double(.nan), .bool(false), .null],
                ]),
            layer(
                "fastigheter", text + [("AGARE", .string)],
                [
                    [.string("X 1:2"), .string("ek. för."), .int(1), .double(2), .bool(true), .string("Skog AB")],
                    [.string("日本語"), .string("\u{1F332}"), .int(0), .double(0.5), .null, .string("ek. för.")],
                ]),
            layer(
                "zoom", [("zoom", .integer), ("a", .string)],
                [[.int(3), .string("aaaa")], [.null, .string("(?i)A")]]),
        ]
    }()

    static let zooms = [0, 5, 12, 14, 22]

    /// Runs one input.
    static func run(_ raw: UnsafeRawBufferPointer) {
        let text = String(decoding: raw, as: UTF8.self)
        let (sheet, diagnostics) = Stylesheet.parse(text, file: file)
        // An upper bound on the lines a lexer may count (every line-break scalar starts one).
        let breaks: Set<Unicode.Scalar> = ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"]
        let lineCount = text.unicodeScalars.reduce(1) { breaks.contains($1) ? $0 + 1 : $0 }
        for d in diagnostics {
            guard d.file == file, !d.code.isEmpty, !d.message.isEmpty else {
                FuzzDriver.fail("a diagnostic without file, code or message: \(d)")
            }
            guard d.line >= 1, d.line <= lineCount + 1, d.column >= 1 else {
                FuzzDriver.fail("diagnostic outside the text (\(lineCount) lines): \(d)")
            }
        }
        for (a, b) in zip(diagnostics, diagnostics.dropFirst()) where b.location < a.location {
            FuzzDriver.fail("diagnostics out of order: \(a) before \(b)")
        }
        guard (sheet == nil) == diagnostics.hasErrors else {
            FuzzDriver.fail("sheet is \(sheet == nil ? "nil" : "set") but errors are \(diagnostics.hasErrors)")
        }
        let (again, againDiagnostics) = Stylesheet.parse(text, file: file)
        guard again == sheet, againDiagnostics == diagnostics else { FuzzDriver.fail("parsing is not deterministic") }
        guard let sheet else { return }

        let first = StyleClassifier(sheet: sheet)
        let second = StyleClassifier(sheet: sheet)
        for (layer, fields, rows) in features {
            let bound = first.matcher(layer: layer, fields: fields)
            for properties in rows {
                for zoom in zooms {
                    let style = first.style(layer: layer, properties: properties, zoom: zoom)
                    guard second.style(layer: layer, properties: properties, zoom: zoom) == style else {
                        FuzzDriver.fail("two classifiers of one sheet differ on \(layer) at z\(zoom)")
                    }
                    guard bound.style(properties: properties, zoom: zoom) == style else {
                        FuzzDriver.fail("the field-bound matcher differs from lookup by name on \(layer) at z\(zoom)")
                    }
                }
            }
            _ = first.dependsOnZoom(layer: layer)
            _ = sheet.possibleClassNames(layer: layer)
            let cascade = ClientCascade(sheet: sheet, layer: layer)
            for zoom in zooms { _ = cascade.neededFlags(zoom: zoom, knowledge: .unknown) }
        }
        let examples = sheet.runExamples()
        guard sheet.runExamples() == examples else { FuzzDriver.fail("@example results are not deterministic") }
    }
}
