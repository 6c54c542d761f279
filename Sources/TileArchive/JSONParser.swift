/// A strict JSON parser for archive metadata read from untrusted files: bounded nesting depth, validated UTF-8,
/// never traps. Object members keep their file order (duplicates included).
struct JSONParser {
    struct Failure: Error, Sendable, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "JSON error at byte \(offset): \(reason)" }
    }

    private let bytes: [UInt8]
    private var pos = 0
    private let maxDepth: Int

    /// Parses one JSON document (surrounding whitespace allowed).
    static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(Failure) -> JSONValue {
        var p = JSONParser(bytes: bytes, maxDepth: maxDepth)
        p.skipWhitespace()
        let v = try p.value(depth: 0)
        p.skipWhitespace()
        guard p.pos == bytes.count else { throw Failure(offset: p.pos, reason: "unexpected bytes after the value") }
        return v
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private func fail(_ reason: String) -> Failure { Failure(offset: pos, reason: reason) }

    private mutating func skipWhitespace() {
        while pos < bytes.count, bytes[pos] == 0x20 || bytes[pos] == 0x0a || bytes[pos] == 0x0d || bytes[pos] == 0x09 {
            pos += 1
        }
    }

    private mutating func literal(_ word: String, _ v: JSONValue) throws(Failure) -> JSONValue {
        let w = Array(word.utf8)
        guard pos + w.count <= bytes.count, Array(bytes[pos..<pos + w.count]) == w else { throw fail("bad literal") }
        pos += w.count
        return v
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= maxDepth else { throw fail("nested deeper than \(maxDepth)") }
        guard pos < bytes.count else { throw fail("unexpected end") }
        switch bytes[pos] {
        case UInt8(ascii: "{"):
            pos += 1
            var members: [(key: String, value: JSONValue)] = []
            skipWhitespace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
                pos += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                let key = try string()
                skipWhitespace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                pos += 1
                skipWhitespace()
                members.append((key, try value(depth: depth + 1)))
                skipWhitespace()
                guard pos < bytes.count else { throw fail("unexpected end in object") }
                if bytes[pos] == UInt8(ascii: ",") {
                    pos += 1
                    continue
                }
                guard bytes[pos] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
                pos += 1
                return .object(members)
            }
        case UInt8(ascii: "["):
            pos += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
                pos += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard pos < bytes.count else { throw fail("unexpected end in array") }
                if bytes[pos] == UInt8(ascii: ",") {
                    pos += 1
                    continue
                }
                guard bytes[pos] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
                pos += 1
                return .array(elements)
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default:
            return try number()
        }
    }

    private mutating func digits() -> Int {
        let start = pos
        while pos < bytes.count, bytes[pos] >= 0x30 && bytes[pos] <= 0x39 { pos += 1 }
        return pos - start
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = pos
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        let intStart = pos
        guard digits() > 0 else { throw fail("bad value") }
        if bytes[intStart] == UInt8(ascii: "0") && pos - intStart > 1 { throw fail("leading zero") }
        var integral = true
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            integral = false
            guard digits() > 0 else { throw fail("bad fraction") }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            pos += 1
            integral = false
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            guard digits() > 0 else { throw fail("bad exponent") }
        }
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        if integral, let v = Int64(text) { return .int(v) }
        guard let d = Double(text), d.isFinite else { throw Failure(offset: start, reason: "number out of range") }
        return .double(d)
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard pos + 4 <= bytes.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[pos]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw fail("bad \\u escape")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }

    private mutating func string() throws(Failure) -> String {
        pos += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard pos < bytes.count else { throw fail("unterminated string") }
            let c = bytes[pos]
            pos += 1
            switch c {
            case UInt8(ascii: "\""):
                guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
                return s
            case UInt8(ascii: "\\"):
                guard pos < bytes.count else { throw fail("unterminated escape") }
                let e = bytes[pos]
                pos += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0c)
                case UInt8(ascii: "n"): out.append(0x0a)
                case UInt8(ascii: "r"): out.append(0x0d)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalarValue = try hex4()
                    if scalarValue >= 0xD800 && scalarValue < 0xDC00 {
                        // A high surrogate needs a low one; a lone surrogate becomes U+FFFD.
                        if pos + 6 <= bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u")
                        {
                            let save = pos
                            pos += 2
                            let low = try hex4()
                            if low >= 0xDC00 && low < 0xE000 {
                                scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                pos = save
                                scalarValue = 0xFFFD
                            }
                        } else {
                            scalarValue = 0xFFFD
                        }
                    } else if scalarValue >= 0xDC00 && scalarValue < 0xE000 {
                        scalarValue = 0xFFFD
                    }
                    let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw fail("bad escape")
                }
            default:
                guard c >= 0x20 else { throw fail("control character in string") }
                out.append(c)
            }
        }
    }
}
