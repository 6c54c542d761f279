import KartpackCore

/// A list of attribute filters written in stylesheet syntax, e.g. `[TYP = "Natura2000"][AREAL > 2]`, used to select
/// source records in pipeline files. Zoom filters are not allowed (records are selected once, not per zoom).
public struct AttributeFilterList: Sendable, Hashable, CustomStringConvertible {
    /// The filters; a record matches when every filter matches.
    public var filters: [AttributeFilter]

    /// Parses `text`; diagnostics carry `file` and columns within `text`.
    public static func parse(_ text: String, file: String) -> (AttributeFilterList?, [StyleDiagnostic]) {
        // Parsed as the selector of a one-rule sheet, so the syntax and the messages are the stylesheet's own.
        let prefix = "*"
        let (sheet, diagnostics) = Stylesheet.parse(prefix + text + " { class: x; }", file: file)
        let shifted = diagnostics.map { d -> StyleDiagnostic in
            var d = d
            if d.line == 1 { d.column = max(1, d.column - prefix.count) }
            return d
        }
        guard let sheet, shifted.allSatisfy({ $0.severity != .error }) else { return (nil, shifted) }
        guard sheet.rules.count == 1, sheet.rules[0].selectors.count == 1,
            sheet.rules[0].selectors[0].compounds.count == 1
        else {
            return (
                nil,
                [
                    StyleDiagnostic(
                        .error, code: "bad_filter", file: file, line: 1, column: 1,
                        message: "expected attribute filters like [NAME = \"value\"]")
                ]
            )
        }
        let compound = sheet.rules[0].selectors[0].compounds[0]
        guard compound.zoomFilters.isEmpty else {
            return (
                nil,
                [
                    StyleDiagnostic(
                        .error, code: "bad_filter", file: file, line: 1, column: 1,
                        message: "zoom filters are not allowed in a record filter")
                ]
            )
        }
        return (AttributeFilterList(filters: compound.filters), shifted)
    }

    /// True when every filter matches the record's properties (attribute names case-insensitive).
    public func matches(_ properties: Properties) -> Bool {
        filters.allSatisfy { f in
            let lower = f.attribute.lowercased()
            let i = properties.keys.firstIndex { $0.lowercased() == lower }
            return f.matches(i.map { properties.values[$0] })
        }
    }

    public var description: String { filters.map(\.description).joined() }
}
