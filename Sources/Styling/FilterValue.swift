/// A number written in a sheet, kept both as a double and, when whole, as an exact integer.
public struct NumberLiteral: Sendable, Hashable, CustomStringConvertible {
    /// The value.
    public var value: Double
    /// The exact value when the literal was a whole number that fits `Int64` (e.g. `3`, `-12`, `4.0`).
    public var integer: Int64?
    /// The text as written.
    public var text: String

    /// Creates a literal from its text; nil when the text is not a finite decimal number.
    public init?(text: String) {
        guard let v = parseDecimal(Substring(text)) else { return nil }
        value = v
        self.text = text
        integer = Int64(text) ?? ((v == v.rounded() && abs(v) < 9.2e18) ? Int64(v) : nil)
    }

    /// The text as written.
    public var description: String { text }
}

/// The right-hand side of an attribute comparison.
///
/// Comparisons are typed: a number compares with numeric attributes (int, uint, double) numerically, and with a
/// text attribute only when that text reads as a decimal number (`"2409"`, `" 3.5"`); text compares only with text
/// attributes, case-sensitively; `true` / `false` compare only with boolean attributes.
public enum FilterValue: Sendable, Hashable, CustomStringConvertible {
    /// A number: `3`, `-2.5`.
    case number(NumberLiteral)
    /// Text: a quoted string or a bare word.
    case text(String)
    /// The bare words `true` / `false`.
    case bool(Bool)

    /// The value as it would be written in a sheet (text always quoted).
    public var description: String {
        switch self {
        case .number(let n): n.text
        case .text(let s): quoteStyleString(s)
        case .bool(let b): b ? "true" : "false"
        }
    }
}

/// Parses a finite decimal number (`-12`, `3.5`, `1e3`, surrounding ASCII spaces allowed); nil for anything else,
/// including hex, `nan` and `inf`.
func parseDecimal(_ text: Substring) -> Double? {
    var s = text[...]
    while let f = s.utf8.first, f == 0x20 || f == 0x09 { s = s.dropFirst() }
    while let l = s.utf8.last, l == 0x20 || l == 0x09 { s = s.dropLast() }
    guard !s.isEmpty else { return nil }
    var sawDigit = false
    for b in s.utf8 {
        switch b {
        case 0x30...0x39: sawDigit = true
        case 0x2B, 0x2D, 0x2E, 0x45, 0x65: continue  // + - . E e
        default: return nil
        }
    }
    guard sawDigit, let v = Double(s), v.isFinite else { return nil }
    return v
}

/// A string in double quotes with `"` and `\` escaped, as a sheet would write it.
func quoteStyleString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default: out.unicodeScalars.append(u)
        }
    }
    return out + "\""
}
