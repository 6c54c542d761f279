public import TileArchive

/// Why JSON text could not be parsed: a message and the byte offset where parsing stopped.
public struct StyleJSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public var message: String
    /// The byte offset in the UTF-8 text.
    public var offset: Int

    /// `message at byte N`.
    public var description: String { "\(message) at byte \(offset)" }
}

/// Reading and writing the JSON of styles, sprite indexes and package metadata, on TileArchive's ordered
/// `JSONValue` (object members keep their order, so output is deterministic).
public enum StyleJSON {
    /// Parses JSON text (RFC 8259; nesting capped at 128 levels). Integers that fit `Int64` become `.int`, other
    /// numbers `.double`.
    public static func parse(_ text: String) throws(StyleJSONParseError) -> JSONValue {
        var p = Parser(bytes: Array(text.utf8))
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == p.bytes.count else { throw p.fail("trailing characters") }
        return v
    }

    /// Pretty JSON text: two-space indentation, members in stored order, an array of scalars on one line when
    /// short, a final newline. Non-finite doubles (never produced here) are written as `null`.
    public static func pretty(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: 0, into: &out)
        out += "\n"
        return out
    }

    /// Compact JSON text (no spaces).
    public static func compact(_ value: JSONValue) -> String {
        var out = ""
        writeCompact(value, into: &out)
        return out
    }

    /// A number as JSON: whole doubles without a fraction (`2`, not `2.0`), others in shortest round-trip form.
    static func number(_ d: Double) -> JSONValue {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 { return .int(Int64(d)) }
        return .double(d)
    }

    private static func isScalar(_ v: JSONValue) -> Bool {
        switch v {
        case .array, .object: false
        default: true
        }
    }

    private static func isFlat(_ v: JSONValue) -> Bool {
        switch v {
        case .object(let m): m.isEmpty
        case .array(let a): a.allSatisfy { isScalar($0) || isFlat($0) }
        default: true
        }
    }

    private static func write(_ v: JSONValue, indent: Int, into out: inout String) {
        let pad = String(repeating: " ", count: indent + 2)
        switch v {
        case .array(let a):
            if a.isEmpty {
                out += "[]"
                return
            }
            if isFlat(v) {
                let c = compact(v)
                if c.count <= 100 {
                    out += c
                    return
                }
            }
            out += "[\n"
            for (i, e) in a.enumerated() {
                out += pad
                write(e, indent: indent + 2, into: &out)
                out += i + 1 < a.count ? ",\n" : "\n"
            }
            out += String(repeating: " ", count: indent) + "]"
        case .object(let m):
            if m.isEmpty {
                out += "{}"
                return
            }
            out += "{\n"
            for (i, e) in m.enumerated() {
                out += pad
                writeString(e.key, into: &out)
                out += ": "
                write(e.value, indent: indent + 2, into: &out)
                out += i + 1 < m.count ? ",\n" : "\n"
            }
            out += String(repeating: " ", count: indent) + "}"
        default:
            writeCompact(v, into: &out)
        }
    }

    private static func writeCompact(_ v: JSONValue, into out: inout String) {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? d.description : "null"
        case .string(let s): writeString(s, into: &out)
        case .array(let a):
            out += "["
            for (i, e) in a.enumerated() {
                if i > 0 { out += "," }
                writeCompact(e, into: &out)
            }
            out += "]"
        case .object(let m):
            out += "{"
            for (i, e) in m.enumerated() {
                if i > 0 { out += "," }
                writeString(e.key, into: &out)
                out += ":"
                writeCompact(e.value, into: &out)
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

    private struct Parser {
        let bytes: [UInt8]
        var i = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        func fail(_ message: String) -> StyleJSONParseError { StyleJSONParseError(message: message, offset: i) }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 {
                i += 1
            }
        }

        mutating func literal(_ word: String, _ v: JSONValue) throws(StyleJSONParseError) -> JSONValue {
            let w = Array(word.utf8)
            guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else { throw fail("bad literal") }
            i += w.count
            return v
        }

        mutating func value(depth: Int) throws(StyleJSONParseError) -> JSONValue {
            guard depth < 128 else { throw fail("nesting deeper than 128") }
            guard i < bytes.count else { throw fail("unexpected end") }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                var members: [(key: String, value: JSONValue)] = []
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                    i += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                    let key = try string()
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                    i += 1
                    skipSpace()
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard i < bytes.count else { throw fail("unterminated object") }
                    if bytes[i] == UInt8(ascii: ",") {
                        i += 1
                        continue
                    }
                    guard bytes[i] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
                    i += 1
                    return .object(members)
                }
            case UInt8(ascii: "["):
                i += 1
                var elements: [JSONValue] = []
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                    i += 1
                    return .array(elements)
                }
                while true {
                    skipSpace()
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    guard i < bytes.count else { throw fail("unterminated array") }
                    if bytes[i] == UInt8(ascii: ",") {
                        i += 1
                        continue
                    }
                    guard bytes[i] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
                    i += 1
                    return .array(elements)
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func number() throws(StyleJSONParseError) -> JSONValue {
            let start = i
            var isInteger = true
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
            let digitsStart = i
            while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
            guard i > digitsStart else { throw fail("unexpected character") }
            if bytes[digitsStart] == 0x30 && i - digitsStart > 1 { throw fail("leading zero") }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                isInteger = false
                i += 1
                let f = i
                while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
                guard i > f else { throw fail("digits expected after '.'") }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                isInteger = false
                i += 1
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                let e = i
                while i < bytes.count, bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
                guard i > e else { throw fail("digits expected in exponent") }
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            if isInteger, let v = Int64(text) { return .int(v) }
            guard let d = Double(text), d.isFinite else { throw fail("number out of range") }
            return .double(d)
        }

        mutating func hex4() throws(StyleJSONParseError) -> UInt32 {
            guard i + 4 <= bytes.count else { throw fail("truncated \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[i]
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: throw fail("bad \\u escape")
                }
                v = v * 16 + d
                i += 1
            }
            return v
        }

        mutating func string() throws(StyleJSONParseError) -> String {
            i += 1  // opening quote
            var out: [UInt8] = []
            while true {
                guard i < bytes.count else { throw fail("unterminated string") }
                let c = bytes[i]
                if c == UInt8(ascii: "\"") {
                    i += 1
                    break
                }
                guard c >= 0x20 else { throw fail("control character in string") }
                if c != UInt8(ascii: "\\") {
                    out.append(c)
                    i += 1
                    continue
                }
                i += 1
                guard i < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if scalar >= 0xD800 && scalar < 0xDC00 {
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u")
                        else { throw fail("lone surrogate") }
                        i += 2
                        let low = try hex4()
                        guard low >= 0xDC00 && low < 0xE000 else { throw fail("bad surrogate pair") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if scalar >= 0xDC00 && scalar < 0xE000 {
                        throw fail("lone surrogate")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("bad \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default: throw fail("bad escape")
                }
            }
            guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
            return s
        }
    }
}
