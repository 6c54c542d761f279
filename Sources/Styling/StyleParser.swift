import KartpackCore

/// A declaration as read, before its value is checked against its property.
struct RawDeclaration {
    var name: StyleToken
    var values: [StyleToken]
}

/// Recursive-descent parser for `.kss` sheets; collects every error and warning it can, recovering at `;`, `}`
/// and rule boundaries.
struct StyleParser {
    let file: String
    private var tokens: [StyleToken]
    private var position = 0
    private(set) var diagnostics: [StyleDiagnostic]
    private(set) var rules: [StyleRule] = []
    /// Set by the at-rules (`StyleParser+AtRules.swift`).
    var examples: [StyleExample] = []
    var map = MapSettings()

    init(text: String, file: String) {
        var lexer = StyleLexer(text: text, file: file)
        tokens = lexer.tokenize()
        diagnostics = lexer.diagnostics
        self.file = file
    }

    // MARK: Token access

    var current: StyleToken { tokens[position] }

    mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    mutating func error(_ code: String, at location: StyleLocation, _ message: String) {
        diagnostics.append(StyleDiagnostic(.error, code: code, file: file, at: location, message))
    }

    mutating func warning(_ code: String, at location: StyleLocation, _ message: String) {
        diagnostics.append(StyleDiagnostic(.warning, code: code, file: file, at: location, message))
    }

    // MARK: Sheet

    mutating func parse() {
        while current.kind != .eof {
            switch current.kind {
            case .atKeyword:
                parseAtRule()
            case .rightBrace, .semicolon, .rightBracket, .colon, .comma:
                error("stray_token", at: current.location, "unexpected \(current.display) outside a rule")
                advance()
            default:
                parseRule()
            }
        }
    }

    /// Skips a broken rule: up to a `;` or `}` (consumed), or over a `{ … }` block.
    mutating func recover() {
        while true {
            switch current.kind {
            case .eof:
                return
            case .semicolon, .rightBrace:
                advance()
                return
            case .leftBrace:
                skipBlock()
                return
            default:
                advance()
            }
        }
    }

    /// Skips from `{` to its `}` (or the end of the file).
    private mutating func skipBlock() {
        var depth = 0
        while current.kind != .eof {
            if current.kind == .leftBrace { depth += 1 }
            if current.kind == .rightBrace {
                depth -= 1
                if depth <= 0 {
                    advance()
                    return
                }
            }
            advance()
        }
    }

    private mutating func parseRule() {
        let start = current.location
        var selectors: [StyleSelector] = []
        while true {
            guard let selector = parseSelector() else {
                recover()
                return
            }
            selectors.append(selector)
            if current.kind == .comma {
                advance()
                continue
            }
            if current.kind == .leftBrace { break }
            error(
                "expected_brace", at: current.location,
                "expected ',' or '{' after the selector, found \(current.display)")
            recover()
            return
        }
        let raw = parseBlock()
        var declarations: [StyleDeclaration] = []
        for r in raw {
            if let d = checkDeclaration(r) { declarations.append(d) }
        }
        rules.append(StyleRule(selectors: selectors, declarations: declarations, index: rules.count, location: start))
    }

    // MARK: Blocks

    /// Parses `{ name: value; … }` from the `{`; reports a missing `}` at the `{`.
    mutating func parseBlock() -> [RawDeclaration] {
        let open = current.location
        advance()
        var out: [RawDeclaration] = []
        while true {
            let t = current
            switch t.kind {
            case .rightBrace:
                advance()
                return out
            case .eof:
                error("missing_brace", at: open, "missing '}': the block opened here is never closed")
                return out
            case .semicolon:
                advance()
                continue
            case .word:
                break
            default:
                error("bad_declaration", at: t.location, "expected a property name, found \(t.display)")
                if skipDeclaration(open: open) { return out }
                continue
            }
            advance()
            if current.kind == .leftBrace {
                error(
                    "missing_brace", at: open,
                    "missing '}': the block opened here is not closed before the '{' at \(current.location)")
                skipBlock()
                return out
            }
            guard current.kind == .colon else {
                error(
                    "bad_declaration", at: current.location, "expected ':' after '\(t.text)', found \(current.display)")
                if skipDeclaration(open: open) { return out }
                continue
            }
            advance()
            var values: [StyleToken] = []
            var broken = false
            loop: while true {
                switch current.kind {
                case .semicolon, .rightBrace, .eof:
                    break loop
                case .colon:
                    let shown = values.last?.display ?? "':'"
                    error(
                        "missing_semicolon", at: values.last?.location ?? current.location,
                        "expected ';' before \(shown)")
                    broken = true
                    if skipDeclaration(open: open) { return out }
                    break loop
                case .leftBrace:
                    error(
                        "missing_brace", at: open,
                        "missing '}': the block opened here is not closed before the '{' at \(current.location)")
                    skipBlock()
                    return out
                default:
                    values.append(current)
                    advance()
                }
            }
            if broken { continue }
            if values.isEmpty {
                error("missing_value", at: current.location, "missing value for '\(t.text)'")
            } else {
                out.append(RawDeclaration(name: t, values: values))
            }
            if current.kind == .semicolon { advance() }
        }
    }

    /// Skips to the end of a broken declaration; true when the block ended (`}` consumed or end of file).
    private mutating func skipDeclaration(open: StyleLocation) -> Bool {
        while true {
            switch current.kind {
            case .semicolon:
                advance()
                return false
            case .rightBrace:
                advance()
                return true
            case .eof:
                error("missing_brace", at: open, "missing '}': the block opened here is never closed")
                return true
            default:
                advance()
            }
        }
    }
}
