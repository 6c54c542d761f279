/// A JSON value with ordered object members, so that writing it is deterministic (no dictionaries).
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer, written without a fraction.
    case int(Int64)
    /// A finite double, written in Swift's shortest round-trip form (`1.0`, `0.1`, `1e-07`).
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// Members in the order they are written.
    case object([(key: String, value: JSONValue)])

    /// Structural equality (object members compared in order).
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The first member named `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, for `.string`.
    public var stringValue: String? {
        if case .string(let s) = self { s } else { nil }
    }

    /// The number as an integer, for `.int` (and integral `.double` values in range).
    public var intValue: Int64? {
        switch self {
        case .int(let v): return v
        case .double(let d):
            guard d.rounded() == d, let v = Int64(exactly: d) else { return nil }
            return v
        default: return nil
        }
    }

    /// The number as a double, for `.int` and `.double`.
    public var doubleValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .double(let d): d
        default: nil
        }
    }

    /// The elements, for `.array`.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { a } else { nil }
    }

    /// The members, for `.object`.
    public var objectMembers: [(key: String, value: JSONValue)]? {
        if case .object(let m) = self { m } else { nil }
    }

    /// Compact JSON text: members in their stored order, no spaces, non-ASCII kept as UTF-8, control characters
    /// escaped. Throws `.invalidMetadata` for a non-finite double.
    public func serialized() throws(TileArchiveError) -> String {
        var out = ""
        try write(into: &out)
        return out
    }

    private func write(into out: inout String) throws(TileArchiveError) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let v): out += String(v)
        case .double(let d):
            guard d.isFinite else { throw .invalidMetadata("JSON cannot hold the number \(d)") }
            out += d.description
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let elements):
            out += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { out += "," }
                try e.write(into: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, m) in members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(m.key, into: &out)
                out += ":"
                try m.value.write(into: &out)
            }
            out += "}"
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
                if scalar.value < 0x20 || scalar.value == 0x7f || scalar.value == 0x2028 || scalar.value == 0x2029 {
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
