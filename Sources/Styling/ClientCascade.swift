import KartpackCore

/// What the class a feature carries in its tiles tells about it.
public enum ClassKnowledge: Sendable, Hashable {
    /// The package has no `class` for the layer (built without a sheet): nothing is known.
    case unknown
    /// The feature's tile `class` is this name (nil: the feature has no `class`).
    case known(String?)
}

/// Why a client cannot test a selector itself.
public enum ClientLimitation: String, Sendable, Hashable {
    /// A descendant selector (`A B`): containment is not in the tiles.
    case descendant
    /// A regular expression (`=~`): MapLibre expressions have none.
    case regex
    /// The attribute may be dropped by a `keep` declaration.
    case droppedAttribute = "dropped-attribute"
    /// A number compared with a text field (Kartpack reads text as a number, the client does not).
    case numberOnText = "number-on-text"
    /// A `$=` suffix with characters outside the Basic Multilingual Plane (clients count them differently).
    case astralSuffix = "astral-suffix"
}

/// The cascade of one layer translated for a client that sees only what is in the tiles: the kept attributes,
/// the `class`, and match flags the engine writes for selectors the client cannot test.
///
/// For each zoom and class, `look` gives every client property as a decision list (`ClientLookRules`): the entries of
/// the cascade (rule selectors) that declare the property, most precedent first, each with a `ClientCondition`:
/// - entries whose filters a client can test exactly (attribute filters on attributes every `keep` of the layer
///   keeps, no regex, no number on a text field) become attribute tests;
/// - the feature's `class` settles some entries: the class-setting entries above the first one that sets the
///   feature's class did not match (`never`); when the entries that set that class are the selectors of one rule,
///   the last of them stands for "the rule matched" (`always`; the others keep their conditions);
/// - the other entries (descendant selectors, regex, dropped attributes) need a **match flag**: the engine writes
///   the property `kp:rRsS` (rule R, selector S) = `true` on each feature at each zoom where the entry matches and
///   the client needs it (`flags(properties:zoom:className:inside:)`). Without the flag in the package the entry
///   counts as not matching and `losses` reports it.
///
/// Zoom filters are settled per zoom (the client style gets one layer per zoom range). A pure function of the
/// sheet, the layer name and the field kinds, so the engine and `kartpack style` compute the same.
public struct ClientCascade: Sendable {
    /// The layer whose rules apply (the input layer name, case-insensitive).
    public let layer: String
    private let entries: [CompiledEntry]
    private let ancestorFilters: [AncestorSelector]
    private let limitation: [ClientLimitation?]
    private let tileNames: [[String]]
    private let sheet: Stylesheet

    /// Prepares the cascade of `layer` in `sheet`. `fieldKinds` maps the attribute names as written in the tiles
    /// to their kinds; a filter's attribute is looked up there ignoring case (missing: the name as written, a
    /// number kind assumed).
    public init(sheet: Stylesheet, layer: String, fieldKinds: [String: ClientFieldKind] = [:]) {
        self.sheet = sheet
        self.layer = layer
        let classifier = StyleClassifier(sheet: sheet)
        let lower = layer.lowercased()
        let mine = classifier.entries.filter { $0.subjectLayer == nil || $0.subjectLayer == lower }
        entries = mine
        ancestorFilters = classifier.ancestorSelectors
        let kept = Self.keptAttributes(sheet: sheet, layer: layer)
        var limits: [ClientLimitation?] = []
        var names: [[String]] = []
        for e in mine {
            var limit: ClientLimitation? = e.ancestor >= 0 ? .descendant : nil
            var entryNames: [String] = []
            for f in e.attributeFilters {
                let tileName = fieldKinds.keys.sorted().first { $0.lowercased() == f.name } ?? f.name
                entryNames.append(tileName)
                if limit != nil { continue }
                if let kept, !kept.contains(f.name) {
                    limit = .droppedAttribute
                    continue
                }
                switch f.test {
                case .regex: limit = .regex
                case .compare(let op, .number) where fieldKinds[tileName] == .string:
                    // Equality with a number never matches text in the client; Kartpack matches numeric text.
                    _ = op
                    limit = .numberOnText
                case .suffix(let s) where s.unicodeScalars.contains { $0.value > 0xFFFF }:
                    limit = .astralSuffix
                default: break
                }
            }
            limits.append(limit)
            names.append(entryNames)
        }
        limitation = limits
        tileNames = names
    }

    /// The attributes (lower-cased) every `keep` declaration that can apply to `layer` keeps; nil when no rule
    /// for the layer declares `keep` (every attribute stays in the tiles).
    public static func keptAttributes(sheet: Stylesheet, layer: String) -> Set<String>? {
        var kept: Set<String>?
        for rule in sheet.rules where rule.selectors.contains(where: { $0.subject.appliesTo(layer: layer) }) {
            for d in rule.declarations where d.property == .keep {
                let names: Set<String>
                if case .names(let n) = d.value { names = Set(n.map { $0.lowercased() }) } else { names = [] }
                kept = kept.map { $0.intersection(names) } ?? names
            }
        }
        return kept
    }

    /// The flag key of an entry: `kp:r<rule>s<selector>`.
    public static func flagKey(rule: Int, selector: Int) -> String { "kp:r\(rule)s\(selector)" }

    private func key(_ i: Int) -> String {
        Self.flagKey(rule: entries[i].ruleIndex, selector: entries[i].selectorIndex)
    }

    private func active(_ i: Int, zoom: Int) -> Bool { entries[i].zoomFilters.allSatisfy { $0.matches(zoom: zoom) } }

    private func declaresClientProperty(_ i: Int) -> Bool {
        entries[i].declarations.contains {
            !$0.property.isPipelineProperty || $0.property == .maxZoom
                || $0.property == .minZoom
        }
    }

    /// What the class says about each active entry at `zoom`: true (matched), false (did not), nil (unknown);
    /// nil for the whole result when no entry can give the feature that class at this zoom.
    private func classFacts(zoom: Int, knowledge: ClassKnowledge) -> [Int: Bool]? {
        guard case .known(let className) = knowledge else { return [:] }
        var facts: [Int: Bool] = [:]
        var declarers: [(index: Int, value: String?)] = []
        for i in entries.indices where active(i, zoom: zoom) {
            guard let d = entries[i].declarations.first(where: { $0.property == .className }) else { continue }
            if case .text(let name) = d.value { declarers.append((i, name)) } else { declarers.append((i, nil)) }
        }
        let same = declarers.filter { $0.value == className }
        if let first = same.first {
            for d in declarers {
                if d.index == first.index { break }
                facts[d.index] = false
            }
            // The class proves that one of its declarers matched. When they are all selectors of one rule (same
            // declarations), the last one can stand for "the rule matched" as long as the earlier ones keep their
            // own conditions: whichever matched, the rule's values come at or above that position.
            if className != nil, let last = same.last,
                Set(same.map { entries[$0.index].ruleIndex }).count == 1
            {
                facts[last.index] = true
            }
        } else {
            guard className == nil else { return nil }
            for d in declarers { facts[d.index] = false }
        }
        return facts
    }

    /// The attribute values the entries the class proves (`facts` true) pin down with `=` filters (lower-cased
    /// name → the value a matching feature must have), for settling other entries' filters.
    private func knownValues(_ facts: [Int: Bool]) -> [String: PropertyValue?] {
        var known: [String: PropertyValue?] = [:]
        for (i, fact) in facts where fact {
            for f in entries[i].attributeFilters {
                switch f.test {
                case .compare(.equal, .text(let t)): known[f.name] = .string(t)
                case .compare(.equal, .bool(let b)): known[f.name] = .bool(b)
                case .null: known[f.name] = .some(nil)
                default: break
                }
            }
        }
        return known
    }

    /// The condition of entry `i` given the class facts (before looking at flags): nil when the client cannot
    /// test it. Filters on attributes whose value the class proves are settled here.
    private func baseCondition(_ i: Int, facts: [Int: Bool], known: [String: PropertyValue?]) -> ClientCondition? {
        if let f = facts[i] { return f ? .always : .never }
        var remaining: [(tile: String, test: AttributeFilter.Test)] = []
        for (name, f) in zip(tileNames[i], entries[i].attributeFilters) {
            if let value = known[f.name] {
                if !f.test.matches(value) { return .never }
                continue
            }
            remaining.append((name, f.test))
        }
        guard limitation[i] == nil || (remaining.isEmpty && entries[i].ancestor < 0) else { return nil }
        let filters = remaining.map { ClientFilter(attribute: $0.tile, test: $0.test) }
        return filters.isEmpty ? .always : .filters(filters)
    }

    /// Per active entry, its condition (nil: needs a flag) and whether it can still change a client property
    /// (some property it declares is not yet settled by an `always` entry above it).
    private func walk(zoom: Int, facts: [Int: Bool]) -> [(index: Int, condition: ClientCondition?, relevant: Bool)] {
        let known = knownValues(facts)
        var closed = Set<StyleProperty>()
        var out: [(index: Int, condition: ClientCondition?, relevant: Bool)] = []
        for i in entries.indices where active(i, zoom: zoom) {
            let c = baseCondition(i, facts: facts, known: known)
            let props = entries[i].declarations.map(\.property).filter {
                !$0.isPipelineProperty || $0 == .minZoom || $0 == .maxZoom
            }
            let relevant = props.contains { !closed.contains($0) }
            out.append((i, c, relevant))
            if c == .always { closed.formUnion(props) }
        }
        return out
    }

    /// The look of the features with class knowledge `knowledge` at `zoom`; nil when no feature can have that class
    /// at this zoom. `hasFlag` tells which match flags the package carries.
    public func look(zoom: Int, knowledge: ClassKnowledge, hasFlag: (String) -> Bool = { _ in false })
        -> ClientLookRules?
    {
        guard let facts = classFacts(zoom: zoom, knowledge: knowledge) else { return nil }
        var branches: [StyleProperty: [ClientBranch]] = [:]
        var closed = Set<StyleProperty>()
        for step in walk(zoom: zoom, facts: facts) where step.relevant {
            let i = step.index
            let condition = step.condition ?? (hasFlag(key(i)) ? .flag(key(i)) : .never)
            if condition == .never { continue }
            for d in entries[i].declarations where !closed.contains(d.property) {
                guard !d.property.isPipelineProperty || d.property == .minZoom || d.property == .maxZoom else {
                    continue
                }
                branches[d.property, default: []].append(ClientBranch(condition: condition, value: d.value))
                if condition == .always { closed.insert(d.property) }
            }
        }
        return ClientLookRules(branches: branches)
    }

    /// The entries (as flag keys, with why) that need a match flag for features of this class at this zoom.
    public func neededFlags(zoom: Int, knowledge: ClassKnowledge) -> [(key: String, limitation: ClientLimitation)] {
        guard let facts = classFacts(zoom: zoom, knowledge: knowledge) else { return [] }
        var out: [(key: String, limitation: ClientLimitation)] = []
        for step in walk(zoom: zoom, facts: facts) where step.relevant && step.condition == nil {
            if let l = limitation[step.index] { out.append((key(step.index), l)) }
        }
        return out
    }

    /// Every flag key the engine may write for this layer (for `vector_layers` fields, type boolean).
    public var flagKeys: [String] {
        entries.indices.filter { limitation[$0] != nil && declaresClientProperty($0) }.map(key)
    }

    /// **For the engine**: the match flags to add to a feature's properties at `zoom` (each as `true`): the
    /// entries the client needs (`neededFlags` for the feature's class) that match the feature. `properties`
    /// are the feature's source attributes (before `keep`), `className` its class at `zoom`, `inside` answers
    /// descendant selectors as for `StyleClassifier.style`.
    public func flags(
        properties: Properties, zoom: Int, className: String?, inside: (AncestorSelectorID) -> Bool = { _ in false }
    ) -> [String] {
        let needed = Set(neededFlags(zoom: zoom, knowledge: .known(className)).map(\.key))
        guard !needed.isEmpty else { return [] }
        var out: [String] = []
        for i in entries.indices where needed.contains(key(i)) {
            let e = entries[i]
            let attributesMatch = e.attributeFilters.allSatisfy { f in
                f.test.matches(lookup(properties, lowercased: f.name))
            }
            guard attributesMatch else { continue }
            if e.ancestor >= 0, !inside(AncestorSelectorID(rawValue: e.ancestor)) { continue }
            out.append(key(i))
        }
        return out
    }

    /// The rule and selector of a flag key's entry, for messages.
    public func selector(forFlag flag: String) -> (rule: StyleRule, selector: StyleSelector)? {
        guard let i = entries.indices.first(where: { key($0) == flag }) else { return nil }
        let rule = sheet.rules[entries[i].ruleIndex]
        return (rule, rule.selectors[entries[i].selectorIndex])
    }
}
