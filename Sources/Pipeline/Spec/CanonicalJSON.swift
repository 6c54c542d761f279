import TileArchive

/// Deterministic JSON text: object keys sorted by their UTF-8 bytes, no whitespace, integral numbers without a
/// fraction, other numbers in Swift's shortest round-trip form, non-ASCII kept as UTF-8.
///
/// Used for the canonical pipeline (hashed into the fingerprint) and for JSON log lines.
enum CanonicalJSON {
    /// The whole value as compact text with sorted keys.
    static func serialize(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out)
        return out
    }

    private static func write(_ value: JSONValue, into out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += number(d)
        case .string(let s): out += quote(s)
        case .array(let elements):
            out += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { out += "," }
                write(e, into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            let sorted = members.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            for (i, m) in sorted.enumerated() {
                if i > 0 { out += "," }
                out += quote(m.key)
                out += ":"
                write(m.value, into: &out)
            }
            out += "}"
        }
    }

    /// A number: `1` for integral values below 2^53, otherwise the shortest round-trip form (`0.5`, `1e-07`).
    /// Non-finite values (never produced by the parser) are written as `null`.
    static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d.rounded() == d && abs(d) < 9_007_199_254_740_992 { return String(Int64(d)) }
        return d.description
    }

    /// A JSON string literal, escaping quotes, backslashes and control characters.
    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
