/// How `JSONWriter` lays out JSON text.
public enum JSONFormat: Sendable, Hashable {
    /// No white space, members in stored order, doubles in Swift's shortest round-trip form (`1.0`, `0.1`,
    /// `1e-07`).
    case compact
    /// Two-space indentation, `"key": value`, members in stored order, an array of scalars (and flat arrays) on one
    /// line when its compact form is at most 100 characters, empty containers as `[]` / `{}`, a final newline.
    /// Numbers as in `.compact`.
    case pretty
    /// Deterministic text for hashing: no white space, object keys sorted by their UTF-8 bytes, integral doubles
    /// below 2^53 without a fraction (`2`), other doubles in shortest round-trip form.
    case canonical
}

/// The one JSON writer. Strings keep non-ASCII as UTF-8 and escape `"`, `\`, control characters, DEL, U+2028 and
/// U+2029. Non-finite doubles (which JSON cannot hold) are written as `null`; `JSONValue.serialized()` refuses them.
public struct JSONWriter {
    /// The text so far.
    private(set) var text = ""
    /// The first non-finite double met, if any.
    private(set) var nonFinite: Double?
    private let format: JSONFormat

    init(format: JSONFormat) {
        self.format = format
    }

    /// `value` as JSON text in `format`.
    public static func text(_ value: JSONValue, format: JSONFormat) -> String {
        var w = JSONWriter(format: format)
        w.write(value)
        return w.text
    }

    /// A JSON string literal: `"a \"b\""`.
    public static func quoted(_ s: String) -> String {
        var out = ""
        writeString(s, into: &out)
        return out
    }

    /// A number as `.canonical` writes it: `1` for integral values below 2^53, otherwise the shortest round-trip
    /// form (`0.5`, `1e-07`); `null` for non-finite values.
    public static func canonicalNumber(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d.rounded() == d && abs(d) < 9_007_199_254_740_992 { return String(Int64(d)) }
        return d.description
    }

    /// Appends `value` (and, for `.pretty`, the final newline).
    mutating func write(_ value: JSONValue) {
        if format == .pretty {
            writePretty(value, indent: 0)
            text += "\n"
        } else {
            writeCompact(value)
        }
    }

    private mutating func writeCompact(_ value: JSONValue) {
        switch value {
        case .null: text += "null"
        case .bool(let b): text += b ? "true" : "false"
        case .int(let i): text += String(i)
        case .double(let d):
            if !d.isFinite && nonFinite == nil { nonFinite = d }
            text += format == .canonical ? Self.canonicalNumber(d) : (d.isFinite ? d.description : "null")
        case .string(let s): Self.writeString(s, into: &text)
        case .array(let elements):
            text += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { text += "," }
                writeCompact(e)
            }
            text += "]"
        case .object(let members):
            text += "{"
            let ordered =
                format == .canonical
                ? members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : members
            for (i, m) in ordered.enumerated() {
                if i > 0 { text += "," }
                Self.writeString(m.key, into: &text)
                text += ":"
                writeCompact(m.value)
            }
            text += "}"
        }
    }

    /// True for an array that pretty printing may put on one line: scalars, empty objects and such arrays.
    private static func isFlat(_ v: JSONValue) -> Bool {
        switch v {
        case .object(let m): m.isEmpty
        case .array(let a): a.allSatisfy { isFlat($0) }
        default: true
        }
    }

    private mutating func writePretty(_ value: JSONValue, indent: Int) {
        let pad = String(repeating: " ", count: indent + 2)
        switch value {
        case .array(let a):
            if a.isEmpty {
                text += "[]"
                return
            }
            if Self.isFlat(value) {
                var line = JSONWriter(format: .compact)
                line.writeCompact(value)
                if line.text.count <= 100 {
                    text += line.text
                    if nonFinite == nil { nonFinite = line.nonFinite }
                    return
                }
            }
            text += "[\n"
            for (i, e) in a.enumerated() {
                text += pad
                writePretty(e, indent: indent + 2)
                text += i + 1 < a.count ? ",\n" : "\n"
            }
            text += String(repeating: " ", count: indent) + "]"
        case .object(let m):
            if m.isEmpty {
                text += "{}"
                return
            }
            text += "{\n"
            for (i, e) in m.enumerated() {
                text += pad
                Self.writeString(e.key, into: &text)
                text += ": "
                writePretty(e.value, indent: indent + 2)
                text += i + 1 < m.count ? ",\n" : "\n"
            }
            text += String(repeating: " ", count: indent) + "}"
        default:
            writeCompact(value)
        }
    }

    private static func writeString(_ s: String, into out: inout String) {
        out += "\""
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
        out += "\""
    }
}

extension JSONValue {
    /// This value as JSON text (`JSONWriter`); non-finite doubles are written as `null`.
    public func text(_ format: JSONFormat = .compact) -> String {
        JSONWriter.text(self, format: format)
    }
}
