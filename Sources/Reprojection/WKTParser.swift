/// Why Kartpack's WKT tokenizer refused a text.
enum WKTParseError: Error, Equatable, Sendable {
    /// The text is not well-formed WKT; `offset` is the byte offset of the problem.
    case syntax(message: String, offset: Int)
    /// Brackets nest deeper than the limit (real CRS WKT nests about 8 deep).
    case tooDeep(limit: Int)
    /// More nodes than the limit.
    case tooManyNodes(limit: Int)

    /// A one-line explanation.
    var message: String {
        switch self {
        case .syntax(let message, let offset): "\(message) at byte \(offset)"
        case .tooDeep(let limit): "brackets nest deeper than \(limit) levels"
        case .tooManyNodes(let limit): "more than \(limit) WKT nodes"
        }
    }
}

/// A small bracket-aware WKT tokenizer: turns text into `WKTNode` trees without recursion deeper than `maxDepth`
/// (so 10,000 nested brackets cannot overflow the stack), and without interpreting anything.
///
/// Grammar (WKT1 OGC, WKT1 ESRI and WKT2 share it):
/// ```
/// document := node ("," node)*            -- ESRI writes "PROJCS[…],VERTCS[…]"
/// node     := KEYWORD ("[" | "(") [value ("," value)*] ("]" | ")")
/// value    := node | "quoted ""string""" | bare     -- bare: [A-Za-z0-9_.+-]+ (numbers, enumerations)
/// ```
/// Whitespace may appear between tokens. Keywords are `[A-Za-z_][A-Za-z0-9_]*`.
struct WKTParser {
    /// The deepest bracket nesting accepted.
    static let maxDepth = 64
    /// The most nodes accepted in one text.
    static let maxNodes = 20_000

    private let bytes: [UInt8]
    private var pos = 0
    private var nodeCount = 0

    private init(_ text: String) { bytes = Array(text.utf8) }

    /// Parses a whole text into its top-level nodes (at least one).
    static func parse(_ text: String) throws(WKTParseError) -> [WKTNode] {
        var p = WKTParser(text)
        return try p.document()
    }

    private mutating func document() throws(WKTParseError) -> [WKTNode] {
        var roots: [WKTNode] = []
        skipWhitespace()
        roots.append(try node(depth: 1))
        while true {
            skipWhitespace()
            guard pos < bytes.count else { break }
            guard bytes[pos] == UInt8(ascii: ",") else {
                throw .syntax(message: "unexpected text after the end of the WKT", offset: pos)
            }
            pos += 1
            skipWhitespace()
            roots.append(try node(depth: 1))
        }
        return roots
    }

    private mutating func node(depth: Int) throws(WKTParseError) -> WKTNode {
        guard depth <= Self.maxDepth else { throw .tooDeep(limit: Self.maxDepth) }
        nodeCount += 1
        guard nodeCount <= Self.maxNodes else { throw .tooManyNodes(limit: Self.maxNodes) }
        let start = pos
        guard pos < bytes.count, Self.isKeywordStart(bytes[pos]) else {
            throw .syntax(message: "expected a WKT keyword", offset: pos)
        }
        while pos < bytes.count, Self.isKeywordChar(bytes[pos]) { pos += 1 }
        let keyword = String(decoding: bytes[start..<pos], as: UTF8.self)
        skipWhitespace()
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: "[") || bytes[pos] == UInt8(ascii: "(") else {
            throw .syntax(message: "expected [ after \(keyword)", offset: pos)
        }
        pos += 1
        var children: [WKTValue] = []
        skipWhitespace()
        if pos < bytes.count, Self.isClose(bytes[pos]) {
            pos += 1
            return WKTNode(keyword: keyword, children: children)
        }
        while true {
            skipWhitespace()
            children.append(try value(depth: depth))
            skipWhitespace()
            guard pos < bytes.count else {
                throw .syntax(message: "missing ] to close \(keyword)", offset: pos)
            }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
            } else if Self.isClose(bytes[pos]) {
                pos += 1
                return WKTNode(keyword: keyword, children: children)
            } else {
                throw .syntax(message: "expected , or ] in \(keyword)", offset: pos)
            }
        }
    }

    private mutating func value(depth: Int) throws(WKTParseError) -> WKTValue {
        guard pos < bytes.count else { throw .syntax(message: "unexpected end of text", offset: pos) }
        let c = bytes[pos]
        if c == UInt8(ascii: "\"") { return .string(try quoted()) }
        let start = pos
        while pos < bytes.count, Self.isBareChar(bytes[pos]) { pos += 1 }
        guard pos > start else {
            throw .syntax(message: "unexpected character '\(Self.printable(c))'", offset: pos)
        }
        let end = pos
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "[") || bytes[pos] == UInt8(ascii: "(") {
            pos = start
            return .node(try node(depth: depth + 1))
        }
        pos = end
        return .bare(String(decoding: bytes[start..<end], as: UTF8.self))
    }

    /// A `"…"` string; `""` inside stands for one quote (WKT2 rule; WKT1 files never contain it).
    private mutating func quoted() throws(WKTParseError) -> String {
        let open = pos
        pos += 1
        var out: [UInt8] = []
        while pos < bytes.count {
            let c = bytes[pos]
            if c == UInt8(ascii: "\"") {
                if pos + 1 < bytes.count, bytes[pos + 1] == UInt8(ascii: "\"") {
                    out.append(c)
                    pos += 2
                    continue
                }
                pos += 1
                return String(decoding: out, as: UTF8.self)
            }
            out.append(c)
            pos += 1
        }
        throw .syntax(message: "unterminated string", offset: open)
    }

    private mutating func skipWhitespace() {
        while pos < bytes.count, Self.isWhitespace(bytes[pos]) { pos += 1 }
    }

    private static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }
    private static func isClose(_ c: UInt8) -> Bool { c == UInt8(ascii: "]") || c == UInt8(ascii: ")") }
    private static func isKeywordStart(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_")
    }
    private static func isKeywordChar(_ c: UInt8) -> Bool { isKeywordStart(c) || (c >= 0x30 && c <= 0x39) }
    private static func isBareChar(_ c: UInt8) -> Bool {
        isKeywordChar(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
    }
    private static func printable(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "\\x" + String(c, radix: 16)
    }
}
