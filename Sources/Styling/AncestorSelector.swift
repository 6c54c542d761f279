import KartpackCore

/// Identifies one ancestor set of descendant selectors (see `AncestorSelector`).
public struct AncestorSelectorID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Index into `StyleClassifier.ancestorSelectors`.
    public let rawValue: Int

    /// Wraps an index.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Orders by index.
    public static func < (a: AncestorSelectorID, b: AncestorSelectorID) -> Bool { a.rawValue < b.rawValue }

    /// `#N`.
    public var description: String { "#\(rawValue)" }
}

/// A set of features that descendant selectors need to test containment against: the features of `layer` whose
/// attributes pass `filters` and — when `parent` is set — that lie inside the parent set themselves.
///
/// For `A B { … }` the classifier asks "is this B feature inside the A set?" through the `inside` closure given to
/// `StyleClassifier.style`. The pipeline builds each set once: the `layer` features for which
/// `matches(properties:)` is true, and, for a set with a parent (the middle of `A B C`), that are also inside the
/// parent set; it answers with a point on the asking feature's surface inside any member (GEOS prepared geometries
/// and a spatial index). `StyleClassifier.ancestorSelectors` lists parents before their children.
///
/// Zoom filters of ancestor compounds are not part of the set: the classifier checks them against the zoom it is
/// given before asking. Identical compounds (same layer, same filters, same parent) share one set.
public struct AncestorSelector: Sendable, Hashable, CustomStringConvertible {
    /// The set's identifier; `StyleClassifier.ancestorSelectors[id.rawValue]` is this selector.
    public let id: AncestorSelectorID
    /// The layer whose features form the set, as first written in the sheet (match it case-insensitively, e.g.
    /// with `isLayer(_:)`).
    public let layer: String
    /// The attribute filters a member must pass.
    public let filters: [AttributeFilter]
    /// The set members must lie inside, for the middle compounds of a chain `A B C`.
    public let parent: AncestorSelectorID?
    let lowercasedLayer: String
    let lowercasedAttributes: [String]

    init(id: AncestorSelectorID, layer: String, filters: [AttributeFilter], parent: AncestorSelectorID?) {
        self.id = id
        self.layer = layer
        self.filters = filters
        self.parent = parent
        lowercasedLayer = layer.lowercased()
        lowercasedAttributes = filters.map { $0.attribute.lowercased() }
    }

    /// True when `name` is this set's layer (case-insensitive).
    public func isLayer(_ name: String) -> Bool { equalsIgnoringCase(name, lowercased: lowercasedLayer) }

    /// True when a feature of `layer` with these attributes belongs to the set (not counting `parent`).
    public func matches(properties: Properties) -> Bool {
        for (i, f) in filters.enumerated()
        where !f.test.matches(lookup(properties, lowercased: lowercasedAttributes[i])) {
            return false
        }
        return true
    }

    /// The compound as written, e.g. `fastigheter[AGARE ^= "Södra"]`, with its parent as `(inside #0)`.
    public var description: String {
        let base = layer + filters.map(\.description).joined()
        return parent.map { "\(base) (inside \($0))" } ?? base
    }

}
