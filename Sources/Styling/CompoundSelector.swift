/// One compound of a selector: a layer name or `*`, then filters, e.g. `hansyn[TYP = "Natura2000"][zoom >= 10]`.
public struct CompoundSelector: Sendable, Hashable, CustomStringConvertible {
    /// The layer name as written, or nil for `*`. Layer names are matched case-insensitively.
    public var layer: String?
    /// The attribute filters, in the order written.
    public var filters: [AttributeFilter]
    /// The zoom filters, in the order written.
    public var zoomFilters: [ZoomFilter]
    /// Where the layer name or `*` starts.
    public var location: StyleLocation

    /// Creates a compound selector.
    public init(layer: String?, filters: [AttributeFilter], zoomFilters: [ZoomFilter], location: StyleLocation) {
        self.layer = layer
        self.filters = filters
        self.zoomFilters = zoomFilters
        self.location = location
    }

    /// One per filter (attribute or zoom), plus one in the names column for a layer name.
    public var specificity: Specificity {
        Specificity(filters: filters.count + zoomFilters.count, names: layer == nil ? 0 : 1)
    }

    /// True when the compound applies to features of `layerName` (case-insensitive; `*` applies to every layer).
    public func appliesTo(layer layerName: String) -> Bool {
        guard let layer else { return true }
        return layer.lowercased() == layerName.lowercased()
    }

    /// The compound as it would be written (attribute filters first, then zoom filters).
    public var description: String {
        (layer ?? "*") + filters.map(\.description).joined() + zoomFilters.map(\.description).joined()
    }
}
