import KartpackCore

/// Selectors: `layer.class[FIELD op value]:zoom(…)`, compounds joined by commas.
extension StyleParser {
    mutating func parseSelector() -> StyleSelector? {
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

    mutating func parseCompound() -> CompoundSelector? {
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
    mutating func parseFilter(into compound: inout CompoundSelector) -> Bool {
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
}
