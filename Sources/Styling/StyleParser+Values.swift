/// Checking declaration values against their properties.
extension StyleParser {
    /// Checks a declaration's value; nil after an error. Unknown properties warn and keep their text.
    mutating func checkDeclaration(_ r: RawDeclaration) -> StyleDeclaration? {
        let name = r.name.text
        guard let property = StyleProperty(rawValue: name.lowercased()) else {
            var message = "unknown property '\(name)'"
            if let guess = Self.suggestion(for: name) { message += "; did you mean '\(guess)'?" }
            warning("unknown_property", at: r.name.location, message)
            let raw = r.values.map {
                $0.kind == .string ? quoteStyleString($0.text) : ($0.kind == .hash ? "#" + $0.text : $0.text)
            }
            return StyleDeclaration(
                name: name, property: nil, value: .raw(raw.joined(separator: " ")), location: r.name.location)
        }
        guard let value = checkValue(property, r) else { return nil }
        return StyleDeclaration(name: name, property: property, value: value, location: r.name.location)
    }

    private mutating func checkValue(_ property: StyleProperty, _ r: RawDeclaration) -> StyleValue? {
        if r.values.count == 1, r.values[0].kind == .word, r.values[0].text == "none" {
            switch property {
            case .className, .fill, .fillPattern, .stroke, .strokeDasharray, .label, .textColor, .icon, .patternColor,
                .patternBackground:
                return .unset
            case .keep, .identity:
                return .names([])
            default:
                error("bad_value", at: r.values[0].location, "'\(property)' cannot be 'none'")
                return nil
            }
        }
        switch property {
        case .className:
            guard let t = single(r), let c = className(t) else { return nil }
            return .text(c)
        case .minZoom, .maxZoom:
            return singleInteger(r, range: 0...24, code: "bad_zoom_value").map(StyleValue.integer)
        case .maxPoints:
            return singleInteger(r, range: 1...1_000_000, code: "bad_value").map(StyleValue.integer)
        case .icon:
            guard let t = single(r) else { return nil }
            if t.kind == .url {
                guard !t.text.isEmpty else {
                    error("bad_value", at: t.location, "url() needs a file name, e.g. url(\"icons/pit.svg\")")
                    return nil
                }
                return .url(t.text)
            }
            guard t.kind == .word || t.kind == .string, !t.text.isEmpty else {
                error(
                    "bad_value", at: t.location,
                    "expected a symbol name or url(\"file.svg\") for 'icon', found \(t.display)")
                return nil
            }
            return .text(t.text)
        case .layer, .label:
            guard let t = single(r) else { return nil }
            guard t.kind == .word || t.kind == .string, !t.text.isEmpty else {
                error("bad_value", at: t.location, "expected a name for '\(property)', found \(t.display)")
                return nil
            }
            return .text(t.text)
        case .keep, .identity:
            return nameList(r).map(StyleValue.names)
        case .thinning:
            let text = r.values.map(\.text).joined(separator: " ")
            guard r.values.allSatisfy({ $0.kind == .word || $0.kind == .number }), let policy = ThinningPolicy(text)
            else {
                error(
                    "bad_value", at: r.values[0].location,
                    "'thinning' takes auto, never or priority N (N from \(ThinningPolicy.priorities.lowerBound) to "
                        + "\(ThinningPolicy.priorities.upperBound)), found '\(text)'")
                return nil
            }
            return .text(policy.description)
        case .exclude, .coalesce:
            guard let t = single(r) else { return nil }
            guard t.kind == .word, t.text == "true" || t.text == "false" else {
                error("bad_value", at: t.location, "expected true or false for '\(property)', found \(t.display)")
                return nil
            }
            return .bool(t.text == "true")
        case .fill, .stroke, .textColor, .patternColor, .patternBackground:
            guard let t = single(r) else { return nil }
            if t.kind == .word, let color = StyleColor(named: t.text) { return .color(color) }
            guard t.kind == .hash, let color = StyleColor(hex: t.text) else {
                let found = t.kind == .hash ? "'#\(t.text)'" : t.display
                error(
                    "bad_color", at: t.location,
                    "invalid colour \(found): use #rgb, #rgba, #rrggbb, #rrggbbaa or a CSS colour name like red")
                return nil
            }
            return .color(color)
        case .patternSpacing:
            return singleNumber(r, property, valid: { (4...64).contains($0) }, rule: "from 4 to 64").map(
                StyleValue.number)
        case .patternWidth:
            return singleNumber(r, property, valid: { $0 > 0 && $0 <= 32 }, rule: "above 0 and at most 32").map(
                StyleValue.number)
        case .fillOpacity, .opacity:
            return singleNumber(r, property, valid: { (0...1).contains($0) }, rule: "between 0 and 1").map(
                StyleValue.number)
        case .strokeWidth:
            return singleNumber(r, property, valid: { $0 >= 0 }, rule: "0 or more").map(StyleValue.number)
        case .textSize:
            return singleNumber(r, property, valid: { $0 > 0 }, rule: "more than 0").map(StyleValue.number)
        case .fillPattern:
            guard let t = single(r) else { return nil }
            guard t.kind == .word || t.kind == .string, let p = FillPattern(rawValue: t.text) else {
                let known = FillPattern.allCases.map(\.rawValue).joined(separator: ", ")
                error("unknown_pattern", at: t.location, "unknown fill pattern \(t.display); known patterns: \(known)")
                return nil
            }
            return .pattern(p)
        case .strokeDasharray:
            var numbers: [Double] = []
            var expectNumber = true
            for t in r.values {
                if t.kind == .comma && !expectNumber {
                    expectNumber = true
                    continue
                }
                guard t.kind == .number, let n = Double(t.text), n.isFinite, n >= 0 else {
                    error(
                        "bad_value", at: t.location,
                        "stroke-dasharray takes numbers of 0 or more separated by spaces or commas, found \(t.display)")
                    return nil
                }
                numbers.append(n)
                expectNumber = false
            }
            guard expectNumber == false, numbers.contains(where: { $0 > 0 }) else {
                error("bad_value", at: r.values[0].location, "stroke-dasharray needs at least one length above 0")
                return nil
            }
            return .numbers(numbers)
        }
    }

    /// The only value token, or nil after reporting that there are several.
    mutating func single(_ r: RawDeclaration) -> StyleToken? {
        guard r.values.count == 1 else {
            error(
                "bad_value", at: r.values[1].location,
                "'\(r.name.text)' takes one value, found \(r.values[1].display) after the first")
            return nil
        }
        return r.values[0]
    }

    /// A single whole number within `range`.
    mutating func singleInteger(_ r: RawDeclaration, range: ClosedRange<Int>, code: String) -> Int? {
        guard let t = single(r) else { return nil }
        guard t.kind == .number, let i = Int(t.text), range.contains(i) else {
            error(
                code, at: t.location,
                "'\(r.name.text)' must be a whole number from \(range.lowerBound) to \(range.upperBound), "
                    + "found \(t.display)"
            )
            return nil
        }
        return i
    }

    private mutating func singleNumber(
        _ r: RawDeclaration, _ property: StyleProperty, valid: (Double) -> Bool, rule: String
    ) -> Double? {
        guard let t = single(r) else { return nil }
        guard t.kind == .number, let n = Double(t.text), n.isFinite else {
            var message = "'\(property)' must be a number, found \(t.display)"
            if t.kind == .word, t.text.first.map({ $0.isNumber || $0 == "-" || $0 == "." }) == true {
                message += " (units are not supported)"
            }
            error("bad_value", at: t.location, message)
            return nil
        }
        guard valid(n) else {
            error("bad_value", at: t.location, "'\(property)' must be \(rule), found \(t.text)")
            return nil
        }
        return n
    }

    /// A class name: `[A-Za-z_][A-Za-z0-9_-]*`, as a word or a string.
    mutating func className(_ t: StyleToken) -> String? {
        guard t.kind == .word || t.kind == .string, isPlainName(t.text) else {
            error(
                "bad_class_name", at: t.location,
                "invalid class name \(t.display): use letters, digits, '_' and '-', starting with a letter or '_'")
            return nil
        }
        return t.text
    }

    /// A comma-separated list of names (words or strings).
    mutating func nameList(_ r: RawDeclaration) -> [String]? {
        var names: [String] = []
        var expectName = true
        for t in r.values {
            if expectName {
                guard t.kind == .word || t.kind == .string, !t.text.isEmpty else {
                    error(
                        "bad_value", at: t.location,
                        "expected a name in the list for '\(r.name.text)', found \(t.display)")
                    return nil
                }
                names.append(t.text)
                expectName = false
            } else {
                guard t.kind == .comma else {
                    error(
                        "bad_value", at: t.location,
                        "expected ',' between the names for '\(r.name.text)', found \(t.display)")
                    return nil
                }
                expectName = true
            }
        }
        if expectName {
            error("bad_value", at: r.values[r.values.count - 1].location, "the list for '\(r.name.text)' ends with ','")
            return nil
        }
        return names
    }

    /// The known property nearest to an unknown name (edit distance at most 2), for a "did you mean" hint.
    static func suggestion(for name: String) -> String? {
        let lower = Array(name.lowercased())
        var best: (String, Int)?
        for p in StyleProperty.allCases {
            let d = editDistance(lower, Array(p.rawValue))
            if d <= 2, best.map({ d < $0.1 }) ?? true { best = (p.rawValue, d) }
        }
        return best?.0
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var row = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &row)
        }
        return previous[b.count]
    }
}
