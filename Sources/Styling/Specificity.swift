/// How specific a selector is; the more specific rule wins a property in the cascade.
///
/// A specificity is the pair `(filters, names)`, compared **lexicographically**: first `filters`, and only when
/// those are equal, `names` — like CSS's `(b, c)` columns, where attribute selectors outrank type selectors.
/// - `filters` counts every `[...]` filter, attribute and zoom filters alike, over all compounds of the selector.
/// - `names` counts the compounds that name a layer; `*` counts 0.
///
/// A descendant selector `A B` adds the specificities of its compounds: `fastigheter[AGARE] avdelningar` is
/// (1, 2). So `*[a]` (1, 0) beats `hansyn` (0, 1); `hansyn` (0, 1) beats `*` (0, 0); `hansyn[a]` (1, 1) beats
/// `*[a]` (1, 0). Between rules of equal specificity the later rule in the sheet wins. In a selector list, each
/// selector is matched separately and the most specific matching one gives the rule its specificity.
public struct Specificity: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Attribute and zoom filters, over all compounds.
    public var filters: Int
    /// Compounds that name a layer (not `*`).
    public var names: Int

    /// Creates a specificity.
    public init(filters: Int, names: Int) {
        self.filters = filters
        self.names = names
    }

    /// (0, 0).
    public static let zero = Specificity(filters: 0, names: 0)

    /// Lexicographic: `filters` first, then `names`.
    public static func < (a: Specificity, b: Specificity) -> Bool {
        (a.filters, a.names) < (b.filters, b.names)
    }

    /// Component-wise sum (for descendant selectors).
    public static func + (a: Specificity, b: Specificity) -> Specificity {
        Specificity(filters: a.filters + b.filters, names: a.names + b.names)
    }

    /// `(filters,names)`, e.g. `(1,2)`.
    public var description: String { "(\(filters),\(names))" }
}
