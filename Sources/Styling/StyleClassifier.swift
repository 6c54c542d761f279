import KartpackCore

/// Computes the style of features: the cascade of a sheet's rules, compiled per layer.
///
/// Build it once per sheet; it is `Sendable` and can be shared by worker threads. For speed, get a
/// `LayerStyleMatcher` per input layer with `matcher(for:)` (which binds attribute names to the schema's field
/// positions) and call its `style(properties:zoom:inside:)` per feature; `style(layer:…)` here looks the layer up
/// on every call.
public struct StyleClassifier: Sendable {
    /// The sheet.
    public let sheet: Stylesheet
    /// The ancestor sets descendant selectors need, parents before children (see `AncestorSelector`).
    public let ancestorSelectors: [AncestorSelector]
    /// Every rule selector as a cascade entry, most precedent first.
    let entries: [CompiledEntry]
    private let matchersByLowercasedLayer: [String: LayerStyleMatcher]
    private let matchersByLayer: [String: LayerStyleMatcher]
    private let wildcardMatcher: LayerStyleMatcher

    /// Compiles a sheet.
    public init(sheet: Stylesheet) {
        self.sheet = sheet
        var ancestors: [AncestorSelector] = []
        var ancestorKeys: [String: Int] = [:]
        var entries: [CompiledEntry] = []
        for rule in sheet.rules {
            // One declaration per property, the last one written; in the order first written.
            var declarations: [AppliedDeclaration] = []
            for d in rule.declarations {
                guard let p = d.property else { continue }
                if let i = declarations.firstIndex(where: { $0.property == p }) {
                    declarations[i].value = d.value
                } else {
                    declarations.append(AppliedDeclaration(property: p, value: d.value, bit: p.bit))
                }
            }
            guard !declarations.isEmpty else { continue }
            let mask = declarations.reduce(UInt32(0)) { $0 | $1.bit }
            for (selectorIndex, selector) in rule.selectors.enumerated() {
                var parent = -1
                for compound in selector.ancestors {
                    let layer = compound.layer ?? "*"
                    let key = "\(parent)|\(layer.lowercased())|" + compound.filters.map(\.description).joined()
                    if let id = ancestorKeys[key] {
                        parent = id
                    } else {
                        let id = ancestors.count
                        ancestors.append(
                            AncestorSelector(
                                id: AncestorSelectorID(rawValue: id), layer: layer, filters: compound.filters,
                                parent: parent < 0 ? nil : AncestorSelectorID(rawValue: parent)))
                        ancestorKeys[key] = id
                        parent = id
                    }
                }
                let subject = selector.subject
                // Cheap tests first, regular expressions last.
                let filters = subject.filters.map { (name: $0.attribute.lowercased(), test: $0.test) }
                let ordered =
                    filters.filter { if case .regex = $0.test { false } else { true } }
                    + filters.filter { if case .regex = $0.test { true } else { false } }
                entries.append(
                    CompiledEntry(
                        ruleIndex: rule.index, selectorIndex: selectorIndex, specificity: selector.specificity,
                        subjectLayer: subject.layer?.lowercased(), attributeFilters: ordered,
                        zoomFilters: selector.compounds.flatMap(\.zoomFilters), ancestor: parent,
                        declarations: declarations, mask: mask))
            }
        }
        // Most precedent first: higher specificity, then the later rule. The sort is stable, so selectors of one rule
        // with equal specificity keep their order (they carry the same declarations, so it does not matter).
        entries.sort { a, b in
            if a.specificity != b.specificity { return a.specificity > b.specificity }
            return a.ruleIndex > b.ruleIndex
        }
        self.entries = entries
        ancestorSelectors = ancestors

        var byLower: [String: LayerStyleMatcher] = [:]
        var byName: [String: LayerStyleMatcher] = [:]
        for rule in sheet.rules {
            for selector in rule.selectors {
                guard let name = selector.subject.layer else { continue }
                let lower = name.lowercased()
                let m =
                    byLower[lower]
                    ?? LayerStyleMatcher(
                        layer: name, lowercasedLayer: lower, entries: entries, fields: nil,
                        ancestorCount: ancestors.count)
                byLower[lower] = m
                byName[name] = m
            }
        }
        matchersByLowercasedLayer = byLower
        matchersByLayer = byName
        wildcardMatcher = LayerStyleMatcher(
            layer: "*", lowercasedLayer: nil, entries: entries, fields: nil, ancestorCount: ancestors.count)
    }

    /// A matcher for features of `layer`, binding attribute names to the positions of `fields` when given (the
    /// features' properties are then expected in field order; a feature whose keys differ is still matched
    /// correctly, by name).
    public func matcher(layer: String, fields: [FieldDefinition]? = nil) -> LayerStyleMatcher {
        LayerStyleMatcher(
            layer: layer, lowercasedLayer: layer.lowercased(), entries: entries, fields: fields,
            ancestorCount: ancestorSelectors.count)
    }

    /// A matcher for the features of a layer with this schema.
    public func matcher(for schema: LayerSchema) -> LayerStyleMatcher {
        matcher(layer: schema.name, fields: schema.fields)
    }

    private func cachedMatcher(_ layer: String) -> LayerStyleMatcher {
        matchersByLayer[layer] ?? matchersByLowercasedLayer[layer.lowercased()] ?? wildcardMatcher
    }

    /// The style of one feature of `layer` at `zoom`.
    ///
    /// `inside` answers, for a descendant selector, whether the feature lies inside the ancestor set with that id;
    /// it is called only after the rest of the selector matched, at most once per set and feature.
    public func style(
        layer: String, properties: Properties, zoom: Int, inside: (AncestorSelectorID) -> Bool = { _ in false }
    ) -> ComputedStyle {
        cachedMatcher(layer).style(properties: properties, zoom: zoom, inside: inside)
    }

    /// True when a zoom filter can change the style of a feature of `layer`; when false, classify each feature once
    /// (at any zoom) instead of once per zoom.
    public func dependsOnZoom(layer: String) -> Bool { cachedMatcher(layer).dependsOnZoom }

    /// True when some rule for `layer` has a descendant selector (the pipeline must then answer `inside`).
    public func usesAncestors(layer: String) -> Bool { cachedMatcher(layer).usesAncestors }
}
