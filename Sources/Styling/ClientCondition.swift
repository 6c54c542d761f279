import KartpackCore

/// The type of a tile attribute as a client sees it (`vector_layers` field types, or a Shapefile field's type).
public enum ClientFieldKind: String, Sendable, Hashable {
    /// Numbers (MVT int, uint, sint, float, double).
    case number
    /// Text.
    case string
    /// Booleans.
    case boolean
}

/// One attribute test a MapLibre client can evaluate exactly on a tile feature: `attribute` is the name as written
/// in the tiles, `test` means what it means in the sheet (see `AttributeFilter.Test`).
public struct ClientFilter: Sendable, Hashable {
    /// The tile attribute name.
    public var attribute: String
    /// The test.
    public var test: AttributeFilter.Test

    /// Creates a filter.
    public init(attribute: String, test: AttributeFilter.Test) {
        self.attribute = attribute
        self.test = test
    }

    /// The test applied to a tile feature's properties (the attribute looked up by its exact tile name).
    public func matches(_ properties: Properties) -> Bool { test.matches(properties[attribute]) }
}

/// When one cascade entry (a selector of a rule) applies to a tile feature, as far as a client can know it.
public enum ClientCondition: Sendable, Hashable, CustomStringConvertible {
    /// Always (the feature's `class` proves it).
    case always
    /// Never (the feature's `class` rules it out, or the client cannot tell and the package lacks the flag).
    case never
    /// Every attribute test holds.
    case filters([ClientFilter])
    /// The engine wrote the match flag with this key as `true` on the feature.
    case flag(String)

    /// Evaluates the condition on a tile feature's properties.
    public func matches(_ properties: Properties) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .filters(let list): list.allSatisfy { $0.matches(properties) }
        case .flag(let key): properties[key] == .bool(true)
        }
    }

    /// A short form for messages and tests.
    public var description: String {
        switch self {
        case .always: "always"
        case .never: "never"
        case .filters(let list):
            list.map { AttributeFilter(attribute: $0.attribute, test: $0.test, location: .init(line: 0, column: 0)) }
                .map(\.description).joined()
        case .flag(let key): "flag \(key)"
        }
    }
}

/// One step of a property's decision list: when `condition` holds (and no earlier step's did), the property is
/// `value` (`.unset` for `none`).
public struct ClientBranch: Sendable, Hashable {
    /// When the branch applies.
    public var condition: ClientCondition
    /// The declared value.
    public var value: StyleValue

    /// Creates a branch.
    public init(condition: ClientCondition, value: StyleValue) {
        self.condition = condition
        self.value = value
    }
}

/// The look of the features of one layer and class at one zoom, as a client can compute it: per client property
/// the cascade's entries that declare it, most precedent first, each with the condition a client can test.
/// The first branch whose condition holds gives the value; none gives no value. Properties no entry declares are
/// absent.
public struct ClientLookRules: Sendable, Hashable {
    /// The decision lists.
    public var branches: [StyleProperty: [ClientBranch]]

    /// Creates a look.
    public init(branches: [StyleProperty: [ClientBranch]] = [:]) { self.branches = branches }

    /// The value a feature with these tile properties gets for `property` (nil: unset or `none`).
    public func value(of property: StyleProperty, properties: Properties) -> StyleValue? {
        for b in branches[property] ?? [] where b.condition.matches(properties) {
            if case .unset = b.value { return nil }
            return b.value
        }
        return nil
    }

    /// Every client property of a feature with these tile properties, as the client draws it.
    public func style(properties: Properties) -> ComputedStyle {
        var s = ComputedStyle()
        for property in StyleProperty.allCases where !property.isPipelineProperty {
            if let v = value(of: property, properties: properties) { s.apply(property, v) }
        }
        for property in [StyleProperty.minZoom, .maxZoom] {
            if let v = value(of: property, properties: properties) { s.apply(property, v) }
        }
        return s
    }

    /// The distinct values a property can take (in branch order; `.unset` included when the property can be
    /// unset, including when no branch applies).
    public func possibleValues(of property: StyleProperty) -> [StyleValue] {
        var out: [StyleValue] = []
        var total = false
        for b in branches[property] ?? [] {
            if !out.contains(b.value) { out.append(b.value) }
            if b.condition == .always {
                total = true
                break
            }
        }
        if !total && !out.contains(.unset) { out.append(.unset) }
        return out
    }
}
