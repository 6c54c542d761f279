import KartpackCore

/// At-rules: `@map { … }` settings and `@example` blocks checked against the sheet.
extension StyleParser {
    mutating func parseAtRule() {
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
    mutating func parseMapRule(_ at: StyleToken) {
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

    mutating func checkExampleDeclaration(_ r: RawDeclaration, into example: inout StyleExample) {
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
