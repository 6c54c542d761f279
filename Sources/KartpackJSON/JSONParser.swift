/// The one strict JSON parser (RFC 8259) for archive metadata, style JSON and pipeline files.
///
/// Built for untrusted input: nesting and size are capped (`JSONParseOptions`), strings are validated as UTF-8,
/// and nothing traps on garbage. Every error carries its byte offset, line and column. Object members keep their
/// file order, duplicates included unless the options reject them. Integers without a fraction or exponent that
/// fit in 64 bits become `.int`; every other number becomes `.double` (out-of-range numbers are errors).
public struct JSONParser {
    private let bytes: [UInt8]
    private let options: JSONParseOptions
    private var pos = 0
    private var lines = JSONLineCounter()
    /// Set by `parseDocument`: record value locations and repeated keys.
    private let tracks: Bool
    private var path = JSONPath.root
    private var valueLocations: [JSONValueLocation] = []
    private var duplicateKeys: [JSONDuplicateKey] = []

    /// Parses one JSON document; surrounding white space is allowed, anything else after the value is not.
    public static func parse(_ bytes: [UInt8], options: JSONParseOptions = JSONParseOptions()) throws(JSONParseError)
        -> JSONValue
    {
        var p = JSONParser(bytes: bytes, options: options, tracks: false)
        return try p.document()
    }

    /// Parses one JSON document from text (see `parse(_:options:)` for bytes).
    public static func parse(_ text: String, options: JSONParseOptions = JSONParseOptions()) throws(JSONParseError)
        -> JSONValue
    {
        try parse(Array(text.utf8), options: options)
    }

    /// Parses one JSON document and also returns where each value starts and which keys are repeated (slower than
    /// `parse`; meant for configuration files whose problems are reported by line and column).
    public static func parseDocument(_ bytes: [UInt8], options: JSONParseOptions = JSONParseOptions())
        throws(JSONParseError) -> JSONParsedDocument
    {
        var p = JSONParser(bytes: bytes, options: options, tracks: true)
        let value = try p.document()
        return JSONParsedDocument(value: value, valueLocations: p.valueLocations, duplicateKeys: p.duplicateKeys)
    }

    private init(bytes: [UInt8], options: JSONParseOptions, tracks: Bool) {
        self.bytes = bytes
        self.options = options
        self.tracks = tracks
    }

    private mutating func document() throws(JSONParseError) -> JSONValue {
        if let cap = options.maxBytes, bytes.count > cap {
            throw fail("the text is larger than \(cap) bytes", at: 0)
        }
        if options.allowsByteOrderMark && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { pos = 3 }
        skipWhitespace()
        guard pos < bytes.count else { throw fail(options.emptyDocumentMessage) }
        let v = try value(depth: 0)
        skipWhitespace()
        guard pos == bytes.count else { throw fail("unexpected text after the end of the JSON value") }
        return v
    }

    // MARK: - Errors and positions

    private mutating func location(_ offset: Int) -> JSONLocation { lines.location(of: offset, in: bytes) }

    /// A failure at byte `offset` (default: the current position).
    private mutating func fail(_ message: String, at offset: Int? = nil) -> JSONParseError {
        let at = location(offset ?? pos)
        return JSONParseError(message: message, offset: at.offset, line: at.line, column: at.column)
    }

    private var current: UInt8? { pos < bytes.count ? bytes[pos] : nil }

    private func describeCurrent() -> String {
        guard let b = current else { return "the end of the file" }
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return b < 0x80 ? "byte 0x\(String(b, radix: 16))" : "a non-ASCII character"
    }

    // MARK: - Grammar

    private mutating func skipWhitespace() {
        while let b = current, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONParseError) {
        guard current == byte else { throw fail("expected \(what), found \(describeCurrent())") }
        pos += 1
    }

    private mutating func literal(_ word: StaticString, _ v: JSONValue) throws(JSONParseError) -> JSONValue {
        let n = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { w in pos + n <= bytes.count && bytes[pos..<pos + n].elementsEqual(w) }
        guard matches else { throw fail("unexpected \(describeCurrent()); expected a JSON value") }
        pos += n
        return v
    }

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < options.maxDepth else { throw fail("nested deeper than \(options.maxDepth) levels") }
        guard let b = current else { throw fail("unexpected end of the file; expected a JSON value") }
        if tracks { valueLocations.append(JSONValueLocation(path: path, location: location(pos))) }
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

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        pos += 1
        var members: [(key: String, value: JSONValue)] = []
        // First offset of each key, only when repeated keys are looked for (membership only, never iterated).
        let checksKeys = tracks || options.duplicateKeys == .reject
        var seen: [String: Int] = [:]
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
            let keyOffset = pos
            let key = try string()
            if checksKeys {
                if let first = seen[key] {
                    if options.duplicateKeys == .reject {
                        throw fail("duplicate key \(JSONWriter.quoted(key))", at: keyOffset)
                    }
                    let firstLocation = location(first)
                    duplicateKeys.append(
                        JSONDuplicateKey(
                            objectPath: path, key: key, location: location(keyOffset), firstLocation: firstLocation))
                } else {
                    seen[key] = keyOffset
                }
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after the key \"\(key)\"")
            skipWhitespace()
            if tracks { path.components.append(.key(key)) }
            let v = try value(depth: depth + 1)
            if tracks { path.components.removeLast() }
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

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
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
            if tracks { path.components.append(.index(elements.count)) }
            elements.append(try value(depth: depth + 1))
            if tracks { path.components.removeLast() }
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

    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = pos
        if current == UInt8(ascii: "-") { pos += 1 }
        if current == UInt8(ascii: "0") {
            pos += 1
            if let b = current, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
                throw fail("numbers must not have leading zeros", at: start)
            }
        } else if digits() == 0 {
            throw fail("expected a digit")
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

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
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

    /// The scalar of a `\u` escape (after the `u`), pairing surrogates; an unpaired one is an error or U+FFFD.
    private mutating func escapedScalar() throws(JSONParseError) -> Unicode.Scalar {
        let high = try hex4()
        let rejects = options.loneSurrogates == .reject
        if (0xD800..<0xDC00).contains(high) {
            if pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") {
                let save = pos
                pos += 2
                let low = try hex4()
                if (0xDC00..<0xE000).contains(low) {
                    return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
                }
                if rejects { throw fail("unpaired surrogate in a \\u escape") }
                pos = save  // the second escape is read again on its own
            } else if rejects {
                throw fail("unpaired surrogate in a \\u escape")
            }
            return "\u{FFFD}"
        }
        if (0xDC00..<0xE000).contains(high) {
            if rejects { throw fail("unpaired surrogate in a \\u escape") }
            return "\u{FFFD}"
        }
        return Unicode.Scalar(high) ?? "\u{FFFD}"
    }

    private mutating func string() throws(JSONParseError) -> String {
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
                case UInt8(ascii: "u"): out.append(contentsOf: String(Character(try escapedScalar())).utf8)
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
