import KartpackCore

extension ClientFieldKind {
    /// The kind a client sees for a Shapefile field type.
    public init(_ type: FieldType) {
        switch type {
        case .string, .date: self = .string
        case .integer, .double: self = .number
        case .logical: self = .boolean
        }
    }

    /// The kind of a TileJSON `vector_layers` field type (`Number`, `String`, `Boolean`); nil for others.
    public init?(tileJSONType: String) {
        switch tileJSONType.lowercased() {
        case "number": self = .number
        case "string": self = .string
        case "boolean": self = .boolean
        default: return nil
        }
    }
}

extension Stylesheet {
    /// Notes (`client_cannot_test`) for every selector a MapLibre client cannot test from the tiles for some
    /// class at some zoom (see `ClientCascade`): `convert` writes the selector's match flag into the tiles so the
    /// client still draws those features as the sheet says; a package built by another tool lacks it. Layers are
    /// `layers` when given, else every layer the sheet
    /// names. One warning per selector, at its position, naming the reason and the classes concerned.
    public func clientLint(layers: [LayerSchema]) -> [StyleDiagnostic] {
        var names: [(String, [String: ClientFieldKind])] = layers.map { schema in
            (schema.name, Dictionary(schema.fields.map { ($0.name, ClientFieldKind($0.type)) }) { a, _ in a })
        }
        if names.isEmpty {
            var seen = Set<String>()
            for rule in rules {
                for s in rule.selectors {
                    if let l = s.subject.layer, seen.insert(l.lowercased()).inserted { names.append((l, [:])) }
                }
            }
        }
        var found: [String: (limitation: ClientLimitation, classes: [String], location: StyleLocation, text: String)] =
            [:]
        var order: [String] = []
        for (layer, kinds) in names {
            let cascade = ClientCascade(sheet: self, layer: layer, fieldKinds: kinds)
            let classes: [String?] = possibleClassNames(layer: layer).map { $0 } + [nil]
            for zoom in 0...24 {
                for c in classes {
                    for need in cascade.neededFlags(zoom: zoom, knowledge: .known(c)) {
                        guard let (_, selector) = cascade.selector(forFlag: need.key) else { continue }
                        let shown = c ?? "(none)"
                        if var entry = found[need.key] {
                            if !entry.classes.contains(shown) { entry.classes.append(shown) }
                            found[need.key] = entry
                        } else {
                            order.append(need.key)
                            found[need.key] = (need.limitation, [shown], selector.location, selector.description)
                        }
                    }
                }
            }
        }
        return order.compactMap { key in
            guard let f = found[key] else { return nil }
            let why: String
            switch f.limitation {
            case .descendant: why = "a descendant selector (containment is not in the tiles)"
            case .regex: why = "a regular expression (MapLibre expressions have none)"
            case .droppedAttribute: why = "a filter on an attribute that 'keep' drops from the tiles"
            case .numberOnText: why = "a number compared with a text field"
            case .astralSuffix: why = "a '$=' suffix with characters outside the Basic Multilingual Plane"
            }
            return StyleDiagnostic(
                .note, code: "client_cannot_test", file: file, at: f.location,
                "a MapLibre client cannot test '\(f.text)' itself: \(why); convert writes the match flag '\(key)' "
                    + "into the tiles so that features of class " + f.classes.joined(separator: ", ")
                    + " that match it are drawn as the sheet says")
        }
    }
}
