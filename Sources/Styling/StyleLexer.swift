/// Splits a sheet into tokens, reporting unterminated strings and comments, bad escapes and stray characters.
struct StyleLexer {
    private let scalars: [Unicode.Scalar]
    private let file: String
    private var index = 0
    private var line = 1
    private var column = 1
    private(set) var diagnostics: [StyleDiagnostic] = []

    init(text: String, file: String) {
        var s = Array(text.unicodeScalars)
        if s.first == "\u{FEFF}" { s.removeFirst() }
        scalars = s
        self.file = file
    }

    private var location: StyleLocation { StyleLocation(line: line, column: column) }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let i = index + offset
        return i < scalars.count ? scalars[i] : nil
    }

    private mutating func advance() {
        let u = scalars[index]
        index += 1
        if u == "\n" || (u == "\r" && peek() != "\n") {
            line += 1
            column = 1
        } else if u != "\r" {
            column += 1
        }
    }

    private mutating func error(_ code: String, at loc: StyleLocation, _ message: String) {
        diagnostics.append(StyleDiagnostic(.error, code: code, file: file, at: loc, message))
    }

    static func isWordStart(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        return (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) || v == 0x5F
            || (v > 0x7F && !u.properties.isWhitespace)
    }

    static func isWordPart(_ u: Unicode.Scalar) -> Bool {
        isWordStart(u) || (0x30...0x39).contains(u.value) || u == "-"
    }

    private static func isDigit(_ u: Unicode.Scalar?) -> Bool { u.map { (0x30...0x39).contains($0.value) } ?? false }

    private static let operatorCharacters: Set<Unicode.Scalar> = ["=", "!", "<", ">", "^", "$", "*", "~", "|"]

    /// Every token, ending with `.eof`.
    mutating func tokenize() -> [StyleToken] {
        var tokens: [StyleToken] = []
        while true {
            let space = skipSpaceAndComments()
            let start = location
            guard let u = peek() else {
                tokens.append(StyleToken(kind: .eof, text: "", location: start, spaceBefore: space))
                return tokens
            }
            func single(_ kind: StyleToken.Kind) -> StyleToken {
                advance()
                return StyleToken(kind: kind, text: String(u), location: start, spaceBefore: space)
            }
            var token: StyleToken
            switch u {
            case "{": token = single(.leftBrace)
            case "}": token = single(.rightBrace)
            case "[": token = single(.leftBracket)
            case "]": token = single(.rightBracket)
            case ":": token = single(.colon)
            case ";": token = single(.semicolon)
            case ",": token = single(.comma)
            case "\"", "'":
                token = StyleToken(kind: .string, text: lexString(quote: u), location: start, spaceBefore: space)
            case "#":
                advance()
                token = StyleToken(kind: .hash, text: lexWordPart(), location: start, spaceBefore: space)
            case "@":
                advance()
                token = StyleToken(kind: .atKeyword, text: lexWordPart(), location: start, spaceBefore: space)
            default:
                if Self.isDigit(u) || (u == "-" && (Self.isDigit(peek(1)) || (peek(1) == "." && Self.isDigit(peek(2)))))
                    || (u == "." && Self.isDigit(peek(1)))
                {
                    token = lexNumber(start: start, space: space)
                } else if Self.isWordStart(u) || (u == "-" && peek(1).map(Self.isWordStart) == true) {
                    let word = lexWordPart()
                    if word.lowercased() == "url", peek() == "(" {
                        token = StyleToken(kind: .url, text: lexURL(start: start), location: start, spaceBefore: space)
                    } else {
                        token = StyleToken(kind: .word, text: word, location: start, spaceBefore: space)
                    }
                } else if Self.operatorCharacters.contains(u) {
                    token = lexOperator(start: start, space: space)
                } else {
                    advance()
                    let shown =
                        u.properties.generalCategory == .control
                        ? "U+\(String(u.value, radix: 16, uppercase: true))" : String(u)
                    error("stray_character", at: start, "unexpected character '\(shown)'")
                    continue
                }
            }
            tokens.append(token)
        }
    }

    /// Skips whitespace and comments; true when anything was skipped.
    private mutating func skipSpaceAndComments() -> Bool {
        var skipped = false
        while let u = peek() {
            if u.properties.isWhitespace {
                advance()
                skipped = true
            } else if u == "/" && peek(1) == "*" {
                let start = location
                advance()
                advance()
                var closed = false
                while let c = peek() {
                    if c == "*" && peek(1) == "/" {
                        advance()
                        advance()
                        closed = true
                        break
                    }
                    advance()
                }
                if !closed { error("unterminated_comment", at: start, "unterminated comment: '/*' has no '*/'") }
                skipped = true
            } else {
                break
            }
        }
        return skipped
    }

    /// Appends the current scalar to `s` and moves past it.
    private mutating func take(into s: inout String.UnicodeScalarView) {
        guard let u = peek() else { return }
        s.append(u)
        advance()
    }

    private mutating func lexWordPart() -> String {
        var s = String.UnicodeScalarView()
        while let u = peek(), Self.isWordPart(u) {
            s.append(u)
            advance()
        }
        return String(s)
    }

    /// A number; digits directly followed by letters (`10px`, `24A`) make one word instead.
    private mutating func lexNumber(start: StyleLocation, space: Bool) -> StyleToken {
        var s = String.UnicodeScalarView()
        if peek() == "-" {
            s.append("-")
            advance()
        }
        while Self.isDigit(peek()) {
            take(into: &s)
        }
        if peek() == ".", Self.isDigit(peek(1)) {
            s.append(".")
            advance()
            while Self.isDigit(peek()) {
                take(into: &s)
            }
        }
        if let e = peek(), e == "e" || e == "E",
            Self.isDigit(peek(1)) || ((peek(1) == "-" || peek(1) == "+") && Self.isDigit(peek(2)))
        {
            s.append(e)
            advance()
            if peek() == "-" || peek() == "+" {
                take(into: &s)
            }
            while Self.isDigit(peek()) {
                take(into: &s)
            }
        }
        if let u = peek(), Self.isWordPart(u) {
            let rest = lexWordPart()
            return StyleToken(kind: .word, text: String(s) + rest, location: start, spaceBefore: space)
        }
        return StyleToken(kind: .number, text: String(s), location: start, spaceBefore: space)
    }

    private mutating func lexOperator(start: StyleLocation, space: Bool) -> StyleToken {
        var s = ""
        while let u = peek(), Self.operatorCharacters.contains(u) {
            // `*` alone is the universal selector; keep it apart from a following `[`, word or space.
            s.unicodeScalars.append(u)
            advance()
            if s == "*" && peek() != "=" { break }
        }
        if s == "*" { return StyleToken(kind: .star, text: s, location: start, spaceBefore: space) }
        if let op = FilterOperator(rawValue: s) {
            return StyleToken(kind: .op(op), text: s, location: start, spaceBefore: space)
        }
        return StyleToken(kind: .badOperator, text: s, location: start, spaceBefore: space)
    }

    /// A quoted string, decoded. An unterminated string (a newline or the end of the file before the closing
    /// quote) is an error reported at the opening quote.
    private mutating func lexString(quote: Unicode.Scalar) -> String {
        let start = location
        advance()
        var out = String.UnicodeScalarView()
        while true {
            guard let u = peek(), u != "\n", u != "\r" else {
                error("unterminated_string", at: start, "unterminated string: no closing \(quote) on this line")
                return String(out)
            }
            if u == quote {
                advance()
                return String(out)
            }
            if u == "\\" {
                let escLoc = location
                advance()
                guard let e = peek(), e != "\n", e != "\r" else { continue }
                advance()
                switch e {
                case "\"", "'", "\\", "/": out.append(e)
                case "n": out.append("\n")
                case "r": out.append("\r")
                case "t": out.append("\t")
                case "u": out.append(contentsOf: lexUnicodeEscape(at: escLoc))
                default:
                    error(
                        "bad_escape", at: escLoc,
                        "unknown escape '\\\(e)' (use \\\" \\' \\\\ \\/ \\n \\r \\t \\uXXXX or \\u{X…})")
                }
                continue
            }
            out.append(u)
            advance()
        }
    }

    /// The inside of `url(…)` from the `(`: a quoted string or bare text up to `)`, surrounding spaces dropped.
    /// A missing `)` is an error reported at `url`.
    private mutating func lexURL(start: StyleLocation) -> String {
        advance()  // (
        while let u = peek(), u == " " || u == "\t" { advance() }
        var out = ""
        if let q = peek(), q == "\"" || q == "'" {
            out = lexString(quote: q)
            while let u = peek(), u == " " || u == "\t" { advance() }
        } else {
            var s = String.UnicodeScalarView()
            while let u = peek(), u != ")", u != "\n", u != "\r", u != ";", u != "}" {
                s.append(u)
                advance()
            }
            while let last = s.last, last == " " || last == "\t" { s.removeLast() }
            out = String(s)
        }
        guard peek() == ")" else {
            error("bad_url", at: start, "url( is not closed with ')'")
            return out
        }
        advance()
        return out
    }

    /// The scalar of `\uXXXX` or `\u{X…}` (after the `u`); reports a bad or surrogate code point.
    private mutating func lexUnicodeEscape(at loc: StyleLocation) -> [Unicode.Scalar] {
        var hex = ""
        if peek() == "{" {
            advance()
            while let u = peek(), u != "}", hex.count < 8, u.properties.isASCIIHexDigit {
                hex.unicodeScalars.append(u)
                advance()
            }
            guard peek() == "}" else {
                error("bad_escape", at: loc, "bad escape: '\\u{' needs 1 to 6 hex digits and '}'")
                return []
            }
            advance()
        } else {
            for _ in 0..<4 {
                guard let u = peek(), u.properties.isASCIIHexDigit else { break }
                hex.unicodeScalars.append(u)
                advance()
            }
            guard hex.count == 4 else {
                error("bad_escape", at: loc, "bad escape: '\\u' needs exactly 4 hex digits")
                return []
            }
        }
        guard !hex.isEmpty, hex.count <= 6, let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) else {
            error("bad_escape", at: loc, "bad escape: U+\(hex.uppercased()) is not a Unicode scalar value")
            return []
        }
        return [scalar]
    }
}
