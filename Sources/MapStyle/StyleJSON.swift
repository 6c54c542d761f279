import KartpackJSON
import TileArchive

/// Why style JSON could not be parsed: TileArchive's `JSONParseError` (message, byte offset, line, column).
public typealias StyleJSONParseError = JSONParseError

/// Reading and writing the JSON of styles, sprite indexes and package metadata with TileArchive's one JSON parser
/// and writer, on its ordered `JSONValue` (object members keep their order, so output is deterministic).
public enum StyleJSON {
    /// How style JSON is read: strict RFC 8259, nesting capped at 128 levels, lone surrogates rejected.
    public static let parseOptions = JSONParseOptions(maxDepth: 128, loneSurrogates: .reject)

    /// Parses JSON text (`parseOptions`). Integers that fit `Int64` become `.int`, other numbers `.double`.
    public static func parse(_ text: String) throws(StyleJSONParseError) -> JSONValue {
        try JSONParser.parse(text, options: parseOptions)
    }

    /// Pretty JSON text (`JSONFormat.pretty`): two-space indentation, members in stored order, an array of scalars
    /// on one line when short, a final newline. Non-finite doubles (never produced here) are written as `null`.
    public static func pretty(_ value: JSONValue) -> String { value.text(.pretty) }

    /// Compact JSON text (`JSONFormat.compact`, no spaces).
    public static func compact(_ value: JSONValue) -> String { value.text(.compact) }

    /// A number as JSON: whole doubles without a fraction (`2`, not `2.0`), others in shortest round-trip form.
    static func number(_ d: Double) -> JSONValue {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 { return .int(Int64(d)) }
        return .double(d)
    }
}
