/// A complete selector: one compound, or a descendant chain `A B` / `A B C` whose last compound (the subject)
/// selects the features and whose earlier compounds (the ancestors) must contain them.
public struct StyleSelector: Sendable, Hashable, CustomStringConvertible {
    /// The compounds, outermost ancestor first, subject last; never empty.
    public var compounds: [CompoundSelector]

    /// Creates a selector from its compounds (outermost first).
    public init(compounds: [CompoundSelector]) {
        precondition(!compounds.isEmpty, "a selector has at least one compound")
        self.compounds = compounds
    }

    /// The compound that selects the styled features.
    public var subject: CompoundSelector { compounds[compounds.count - 1] }

    /// The compounds the subject must lie inside, outermost first (empty for a simple selector).
    public var ancestors: ArraySlice<CompoundSelector> { compounds.dropLast() }

    /// The sum of the compounds' specificities.
    public var specificity: Specificity { compounds.reduce(.zero) { $0 + $1.specificity } }

    /// True when any compound has a zoom filter.
    public var hasZoomFilters: Bool { compounds.contains { !$0.zoomFilters.isEmpty } }

    /// Where the selector starts.
    public var location: StyleLocation { compounds[0].location }

    /// The selector as it would be written.
    public var description: String { compounds.map(\.description).joined(separator: " ") }
}
