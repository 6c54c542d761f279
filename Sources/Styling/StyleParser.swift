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
    private(set) var examples: [StyleExample] = []
    private(set) var map = MapSettings()

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
    private mutating func recover() {
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

    // MARK: Selectors

    private mutating func parseSelector() -> StyleSelector? {
        guard let first = parseCompound() else { return nil }
        var compounds = [first]
        while true {
            let t = current
            switch t.kind {
            case .comma, .leftBrace:
                for a in compounds.dropLast() where a.layer == nil {
                    error(
                        "bad_selector", at: a.location,
                        "the ancestor in a descendant selector must name a layer, not '*'")
                    return nil
                }
                return StyleSelector(compounds: compounds)
            case .op(.greater):
                error(
                    "bad_selector", at: t.location,
                    "the child combinator '>' is not supported; use a space for a descendant selector")
                return nil
            case .word where t.spaceBefore, .star where t.spaceBefore:
                guard let c = parseCompound() else { return nil }
                compounds.append(c)
            case .leftBracket where t.spaceBefore:
                error(
                    "bad_selector", at: t.location,
                    "a filter must follow a layer name or '*' directly, without a space (write `layer[...]`)")
                return nil
            default:
                error("bad_selector", at: t.location, "unexpected \(t.display) in a selector")
                return nil
            }
        }
    }

    private mutating func parseCompound() -> CompoundSelector? {
        let t = current
        let layer: String?
        switch t.kind {
        case .word: layer = t.text
        case .star: layer = nil
        default:
            error("bad_selector", at: t.location, "expected a layer name or '*', found \(t.display)")
            return nil
        }
        advance()
        var compound = CompoundSelector(layer: layer, filters: [], zoomFilters: [], location: t.location)
        while current.kind == .leftBracket && !current.spaceBefore {
            guard parseFilter(into: &compound) else { return nil }
        }
        return compound
    }

    private static let operatorList = "=, !=, <, <=, >, >=, ^=, $=, *=, =~"

    /// Parses `[ … ]` into the compound; false after an error.
    private mutating func parseFilter(into compound: inout CompoundSelector) -> Bool {
        let open = current.location
        advance()
        let nameToken = current
        guard nameToken.kind == .word || nameToken.kind == .string, !nameToken.text.isEmpty else {
            error(
                "bad_filter", at: nameToken.location,
                "expected an attribute name or 'zoom' after '[', found \(nameToken.display)")
            return false
        }
        let isZoom = nameToken.kind == .word && nameToken.text.lowercased() == "zoom"
        advance()
        if current.kind == .rightBracket {
            advance()
            if isZoom {
                error("bad_zoom_value", at: open, "a zoom filter needs an operator and a number, e.g. [zoom >= 10]")
                return false
            }
            compound.filters.append(AttributeFilter(attribute: nameToken.text, test: .present, location: open))
            return true
        }
        let opToken = current
        let op: FilterOperator
        switch opToken.kind {
        case .op(let o): op = o
        case .badOperator:
            error(
                "bad_operator", at: opToken.location,
                "unknown operator \(opToken.display); use one of \(Self.operatorList)")
            return false
        default:
            error(
                "bad_filter", at: opToken.location,
                "expected an operator or ']' after the attribute name, found \(opToken.display)")
            return false
        }
        advance()
        let value = current
        guard value.kind == .number || value.kind == .string || value.kind == .word else {
            error("bad_filter", at: value.location, "expected a value after '\(op.rawValue)', found \(value.display)")
            return false
        }
        advance()
        guard current.kind == .rightBracket else {
            error("bad_filter", at: current.location, "expected ']' to close the filter, found \(current.display)")
            return false
        }
        advance()

        if isZoom {
            guard let cmp = op.comparison else {
                error("bad_operator", at: opToken.location, "operator '\(op.rawValue)' cannot be used with zoom")
                return false
            }
            guard value.kind == .number, let n = Double(value.text), n.isFinite else {
                error(
                    "bad_zoom_value", at: value.location, "a zoom filter compares with a number, found \(value.display)"
                )
                return false
            }
            compound.zoomFilters.append(ZoomFilter(op: cmp, value: n, location: open))
            return true
        }

        let bare = value.kind == .word ? value.text : nil
        let test: AttributeFilter.Test
        if let cmp = op.comparison {
            if bare == "null" {
                guard !cmp.isOrdering else {
                    error("bad_filter", at: value.location, "null can only be compared with '=' or '!='")
                    return false
                }
                test = cmp == .equal ? .null : .present
            } else if bare == "true" || bare == "false" {
                guard !cmp.isOrdering else {
                    error("bad_filter", at: value.location, "true and false can only be compared with '=' or '!='")
                    return false
                }
                test = .compare(cmp, .bool(bare == "true"))
            } else if value.kind == .number, let n = NumberLiteral(text: value.text) {
                test = .compare(cmp, .number(n))
            } else {
                test = .compare(cmp, .text(value.text))
            }
        } else {
            if bare == "null" {
                error("bad_filter", at: value.location, "'\(op.rawValue)' needs text, not null")
                return false
            }
            switch op {
            case .prefix: test = .prefix(value.text)
            case .suffix: test = .suffix(value.text)
            case .contains: test = .contains(value.text)
            default:
                do {
                    test = .regex(try StyleRegex(value.text))
                } catch {
                    self.error("bad_regex", at: value.location, "invalid regular expression: \(error)")
                    return false
                }
            }
        }
        compound.filters.append(AttributeFilter(attribute: nameToken.text, test: test, location: open))
        return true
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

    // MARK: At-rules

    private mutating func parseAtRule() {
        let at = current
        advance()
        if at.text == "map" {
            parseMapRule(at)
            return
        }
        guard at.text == "example" else {
            error("unknown_at_rule", at: at.location, "unknown at-rule \(at.display); '@example' and '@map' are known")
            recover()
            return
        }
        let layerToken = current
        guard layerToken.kind == .word || layerToken.kind == .string else {
            error(
                "bad_example", at: layerToken.location,
                "expected a layer name after '@example', found \(layerToken.display)")
            recover()
            return
        }
        advance()
        guard current.kind == .leftBrace else {
            error(
                "expected_brace", at: current.location,
                "expected '{' after '@example \(layerToken.text)', found \(current.display)")
            recover()
            return
        }
        let raw = parseBlock()
        var example = StyleExample(
            layer: layerToken.text, properties: Properties(), zoom: 14, expectedClass: nil, location: at.location)
        for r in raw { checkExampleDeclaration(r, into: &example) }
        examples.append(example)
    }

    /// `@map { background: COLOR; }`: settings of the whole map; a later `@map` overrides an earlier one.
    private mutating func parseMapRule(_ at: StyleToken) {
        guard current.kind == .leftBrace else {
            error("expected_brace", at: current.location, "expected '{' after '@map', found \(current.display)")
            recover()
            return
        }
        map.location = at.location
        for r in parseBlock() {
            switch r.name.text.lowercased() {
            case "background":
                guard let t = single(r) else { continue }
                if t.kind == .word, t.text == "none" {
                    map.background = nil
                } else if t.kind == .word, let c = StyleColor(named: t.text) {
                    map.background = c
                } else if t.kind == .hash, let c = StyleColor(hex: t.text) {
                    map.background = c
                } else {
                    error("bad_color", at: t.location, "invalid background colour \(t.display)")
                }
            default:
                warning(
                    "unknown_property", at: r.name.location, "unknown @map property '\(r.name.text)'; known: background"
                )
            }
        }
    }

    private mutating func checkExampleDeclaration(_ r: RawDeclaration, into example: inout StyleExample) {
        let name = r.name.text
        switch name.lowercased() {
        case "zoom":
            guard let z = singleInteger(r, range: 0...30, code: "bad_zoom_value") else { return }
            example.zoom = z
        case "expect-class":
            guard let t = single(r) else { return }
            if t.kind == .word && t.text == "none" {
                example.expectedClass = .noClass
            } else if let c = className(t) {
                example.expectedClass = .className(c)
            }
        case "inside":
            guard let names = nameList(r) else { return }
            example.inside += names
        default:
            guard let t = single(r) else { return }
            let value: PropertyValue
            switch t.kind {
            case .number:
                let plain = !t.text.contains(".") && !t.text.lowercased().contains("e")
                if plain, let i = Int64(t.text) {
                    value = .int(i)
                } else if let d = Double(t.text) {
                    value = .double(d)
                } else {
                    error("bad_value", at: t.location, "bad number \(t.display)")
                    return
                }
            case .string: value = .string(t.text)
            case .word:
                switch t.text {
                case "null": value = .null
                case "true": value = .bool(true)
                case "false": value = .bool(false)
                default: value = .string(t.text)
                }
            default:
                error(
                    "bad_value", at: t.location,
                    "expected a number, a string or a word for '\(name)', found \(t.display)")
                return
            }
            var props = example.properties
            props[name] = value
            example.properties = props
        }
    }
}
