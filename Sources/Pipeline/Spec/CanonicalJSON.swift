import TileArchive

/// Deterministic JSON text (`JSONFormat.canonical` of TileArchive's one JSON writer): object keys sorted by their
/// UTF-8 bytes, no whitespace, integral numbers without a fraction, other numbers in Swift's shortest round-trip
/// form, non-ASCII kept as UTF-8.
///
/// Used for the canonical pipeline (hashed into the fingerprint) and for JSON log lines.
enum CanonicalJSON {
    /// The whole value as compact text with sorted keys.
    static func serialize(_ value: JSONValue) -> String { value.text(.canonical) }

    /// A number: `1` for integral values below 2^53, otherwise the shortest round-trip form (`0.5`, `1e-07`).
    /// Non-finite values (never produced by the parser) are written as `null`.
    static func number(_ d: Double) -> String { JSONWriter.canonicalNumber(d) }

    /// A JSON string literal, escaping quotes, backslashes and control characters.
    static func quote(_ s: String) -> String { JSONWriter.quoted(s) }
}
