import KartpackCore

extension Stylesheet {
    /// Warnings for rules that cannot work as written against these input layers:
    /// - a compound naming a layer that is not among `layers` (`unknown_layer`; names compare case-insensitively);
    /// - a filter, `label`, `keep` or `identity` naming a field the layer lacks (`unknown_field`; for `*`, a field no
    ///   layer has);
    /// - a comparison whose type cannot match the field's (`type_mismatch`): text against a numeric or boolean field,
    ///   a text operator (`^=`, `$=`, `*=`, `=~`) on a non-text field, `true`/`false` against a non-boolean field,
    ///   and an ordering comparison (`<`, `<=`, `>`, `>=`) with a number on a text field (it only matches text that
    ///   reads as a number);
    /// - `min-zoom` above `max-zoom` in one rule (`zoom_range`), checked even when `layers` is empty.
    ///
    /// With an empty `layers` list only the sheet-internal checks run. Warnings are sorted by position.
    public func lint(layers: [LayerSchema]) -> [StyleDiagnostic] {
        var out: [StyleDiagnostic] = []
        func warn(_ code: String, _ location: StyleLocation, _ message: String) {
            out.append(StyleDiagnostic(.warning, code: code, file: file, at: location, message))
        }
        func schema(named name: String) -> LayerSchema? {
            let lower = name.lowercased()
            return layers.first { $0.name.lowercased() == lower }
        }
        func field(_ name: String, in schema: LayerSchema) -> FieldDefinition? {
            let lower = name.lowercased()
            return schema.fields.first { equalsIgnoringCase($0.name, lowercased: lower) }
        }
        let layerList = layers.map(\.name).joined(separator: ", ")

        for rule in rules {
            if case .integer(let lo)? = rule.value(of: .minZoom), case .integer(let hi)? = rule.value(of: .maxZoom),
                lo > hi
            {
                let at = rule.declarations.last { $0.property == .minZoom }?.location ?? rule.location
                warn(
                    "zoom_range", at, "min-zoom \(lo) is above max-zoom \(hi): features of this rule are never written")
            }
            guard !layers.isEmpty else { continue }
            var subjectSchemas: [LayerSchema] = []
            for selector in rule.selectors {
                for (position, compound) in selector.compounds.enumerated() {
                    let schemas: [LayerSchema]
                    if let name = compound.layer {
                        guard let s = schema(named: name) else {
                            warn(
                                "unknown_layer", compound.location,
                                "no input layer is named '\(name)' (layers: \(layerList)); this selector never matches")
                            continue
                        }
                        schemas = [s]
                        if position == selector.compounds.count - 1 { subjectSchemas.append(s) }
                    } else {
                        schemas = layers
                    }
                    for filter in compound.filters {
                        let found = schemas.compactMap { field(filter.attribute, in: $0) }
                        guard !found.isEmpty else {
                            if let name = compound.layer {
                                let fields = schemas[0].fields.map(\.name).joined(separator: ", ")
                                warn(
                                    "unknown_field", filter.location,
                                    "layer '\(name)' has no field '\(filter.attribute)' (fields: \(fields))")
                            } else {
                                warn(
                                    "unknown_field", filter.location, "no input layer has a field '\(filter.attribute)'"
                                )
                            }
                            continue
                        }
                        let problems = found.map { Self.typeProblem(filter, $0) }
                        if let problem = problems[0], problems.allSatisfy({ $0 != nil }) {
                            warn("type_mismatch", filter.location, problem)
                        }
                    }
                }
            }
            for d in rule.declarations {
                var names: [String] = []
                switch (d.property, d.value) {
                case (.label?, .text(let n)): names = [n]
                case (.keep?, .names(let n)), (.identity?, .names(let n)): names = n
                default: continue
                }
                for name in names {
                    for s in subjectSchemas where field(name, in: s) == nil {
                        warn("unknown_field", d.location, "layer '\(s.name)' has no field '\(name)' for '\(d.name)'")
                    }
                }
            }
        }
        return out.enumerated().sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }.map(
            \.element)
    }

    /// Why a filter cannot match values of a field's type, or nil when it can.
    static func typeProblem(_ filter: AttributeFilter, _ field: FieldDefinition) -> String? {
        let numeric = field.type == .integer || field.type == .double
        let text = field.type == .string || field.type == .date
        let boolean = field.type == .logical
        let name = "field '\(field.name)'"
        switch filter.test {
        case .present, .null:
            return nil
        case .compare(let op, .number):
            if boolean { return "\(name) is boolean: a number never matches it (compare with true or false)" }
            if text && op.isOrdering {
                return "\(name) is text: '\(op)' with a number only matches values that read as numbers"
            }
            return nil
        case .compare(_, .text(let t)):
            if numeric {
                return "\(name) is numeric: the text \(quoteStyleString(t)) never matches it (write a number)"
            }
            if boolean { return "\(name) is boolean: text never matches it (compare with true or false)" }
            return nil
        case .compare(_, .bool):
            return boolean ? nil : "\(name) is not boolean: true and false never match it"
        case .prefix, .suffix, .contains, .regex:
            return text ? nil : "\(name) is not text: text operators never match it"
        }
    }
}
