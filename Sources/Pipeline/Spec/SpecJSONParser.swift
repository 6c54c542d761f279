import TileArchive

/// A strict JSON parser for pipeline files that reports syntax errors by line and column.
///
/// Object members keep their file order, duplicates included (the spec decoder reports duplicates with their
/// path). Nesting is bounded, UTF-8 is validated, and nothing traps on bad input. Integers without a fraction or
/// exponent that fit in 64 bits become `.int`; every other number becomes `.double`.
struct SpecJSONParser {
    /// A syntax error: 1-based line and column (in characters) and what was expected.
    struct Failure: Error, Sendable, Equatable {
        var line: Int
        var column: Int
        var reason: String
    }

    private let bytes: [UInt8]
    private var pos = 0
    private let maxDepth: Int

    /// Parses one JSON document; surrounding whitespace is allowed, anything else after the value is not.
    static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(Failure) -> JSONValue {
        var p = SpecJSONParser(bytes: bytes, maxDepth: maxDepth)
        // A UTF-8 byte-order mark is tolerated (editors on Windows write one).
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.pos = 3 }
        p.skipWhitespace()
        guard p.pos < bytes.count else { throw p.fail("the file is empty; expected a JSON object") }
        let v = try p.value(depth: 0)
        p.skipWhitespace()
        guard p.pos == bytes.count else { throw p.fail("unexpected text after the end of the JSON value") }
        return v
    }

    /// Parses a `--set` value: JSON when the whole text is a JSON value, nil otherwise.
    static func parseValue(_ text: String) -> JSONValue? {
        do throws(Failure) {
            return try parse(Array(text.utf8), maxDepth: 32)
        } catch {
            return nil
        }
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// A failure at byte `offset` (default: the current position), converted to line and column.
    private func fail(_ reason: String, at offset: Int? = nil) -> Failure {
        let end = min(offset ?? pos, bytes.count)
        var line = 1
        var column = 1
        var i = 0
        while i < end {
            let b = bytes[i]
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1  // count characters, not UTF-8 continuation bytes
            }
            i += 1
        }
        return Failure(line: line, column: column, reason: reason)
    }

    private var current: UInt8? { pos < bytes.count ? bytes[pos] : nil }

    private func describeCurrent() -> String {
        guard let b = current else { return "the end of the file" }
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return b < 0x80 ? "byte 0x\(String(b, radix: 16))" : "a non-ASCII character"
    }

    private mutating func skipWhitespace() {
        while let b = current, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        guard current == byte else { throw fail("expected \(what), found \(describeCurrent())") }
        pos += 1
    }

    private mutating func literal(_ word: String, _ v: JSONValue) throws(Failure) -> JSONValue {
        let w = Array(word.utf8)
        guard pos + w.count <= bytes.count, Array(bytes[pos..<pos + w.count]) == w else {
            throw fail("unexpected \(describeCurrent()); expected a JSON value")
        }
        pos += w.count
        return v
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth < maxDepth else { throw fail("nested deeper than \(maxDepth) levels") }
        guard let b = current else { throw fail("unexpected end of the file; expected a JSON value") }
        switch b {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        case UInt8(ascii: "/"): throw fail("comments are not allowed in JSON")
        case UInt8(ascii: "'"): throw fail("strings must use double quotes")
        default: throw fail("unexpected \(describeCurrent()); expected a JSON value")
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        pos += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            pos += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                if current == UInt8(ascii: "}") { throw fail("trailing comma before '}'") }
                throw fail("expected a quoted key, found \(describeCurrent())")
            }
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after the key \"\(key)\"")
            skipWhitespace()
            let v = try value(depth: depth + 1)
            members.append((key, v))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            try expect(UInt8(ascii: "}"), "',' or '}' after the value of \"\(key)\"")
            return .object(members)
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        pos += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            pos += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if current == UInt8(ascii: "]") { throw fail("trailing comma before ']'") }
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            try expect(UInt8(ascii: "]"), "',' or ']' in the array")
            return .array(elements)
        }
    }

    private mutating func digits() -> Int {
        let start = pos
        while let b = current, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { pos += 1 }
        return pos - start
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = pos
        if current == UInt8(ascii: "-") { pos += 1 }
        if current == UInt8(ascii: "0") {
            pos += 1
            if let b = current, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
                throw fail("numbers must not have leading zeros", at: start)
            }
        } else if digits() == 0 {
            throw fail("expected a digit", at: pos)
        }
        var integral = true
        if current == UInt8(ascii: ".") {
            integral = false
            pos += 1
            guard digits() > 0 else { throw fail("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            pos += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { pos += 1 }
            guard digits() > 0 else { throw fail("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        if integral, let v = Int64(text) { return .int(v) }
        guard let d = Double(text), d.isFinite else { throw fail("number out of range", at: start) }
        return .double(d)
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard pos + 4 <= bytes.count else { throw fail("unterminated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[pos]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw fail("bad hex digit in a \\u escape")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }

    private mutating func string() throws(Failure) -> String {
        let open = pos
        pos += 1
        var out: [UInt8] = []
        while true {
            guard let b = current else { throw fail("unterminated string", at: open) }
            switch b {
            case UInt8(ascii: "\""):
                pos += 1
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw fail("the string is not valid UTF-8", at: open)
                }
                return s
            case UInt8(ascii: "\\"):
                pos += 1
                guard let e = current else { throw fail("unterminated string", at: open) }
                pos += 1
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
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u")
                        else { throw fail("unpaired surrogate in a \\u escape") }
                        pos += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate in a \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("unpaired surrogate in a \\u escape")
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw fail("bad \\u escape") }
                    out.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw fail("unknown escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: pos - 2)
                }
            default:
                guard b >= 0x20 else { throw fail("control character in a string (write it as an escape)") }
                out.append(b)
                pos += 1
            }
        }
    }
}
