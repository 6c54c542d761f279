import KartpackCore

/// The cascade compiled for one layer: only the rules whose subject names the layer or is `*`, with attribute
/// names resolved once. `style(properties:zoom:inside:)` allocates nothing but the result (attribute positions
/// and ancestor answers live in a stack buffer) and skips every rule that can no longer change the result.
public struct LayerStyleMatcher: Sendable {
    /// The layer name this matcher was built for.
    public let layer: String
    /// True when a zoom filter can change a feature's style.
    public let dependsOnZoom: Bool
    /// True when a rule for this layer has a descendant selector.
    public let usesAncestors: Bool
    private let entries: [CompiledEntry]
    private let slotNames: [String]
    private let slotHints: [Int]
    private let slotExactNames: [String]
    private let ancestorCount: Int
    private let fullMask: UInt32

    init(
        layer: String, lowercasedLayer: String?, entries all: [CompiledEntry], fields: [FieldDefinition]?,
        ancestorCount: Int
    ) {
        self.layer = layer
        var slotNames: [String] = []
        var slotIndex: [String: Int] = [:]
        var entries: [CompiledEntry] = []
        for var e in all where e.subjectLayer == nil || e.subjectLayer == lowercasedLayer {
            e.filters = e.attributeFilters.map { f in
                if let s = slotIndex[f.name] { return CompiledFilter(slot: s, test: f.test) }
                slotIndex[f.name] = slotNames.count
                slotNames.append(f.name)
                return CompiledFilter(slot: slotNames.count - 1, test: f.test)
            }
            entries.append(e)
        }
        self.entries = entries
        self.slotNames = slotNames
        var hints = [Int](repeating: -1, count: slotNames.count)
        var exact = [String](repeating: "", count: slotNames.count)
        if let fields {
            for (s, name) in slotNames.enumerated() {
                if let i = fields.firstIndex(where: { equalsIgnoringCase($0.name, lowercased: name) }) {
                    hints[s] = i
                    exact[s] = fields[i].name
                }
            }
        }
        slotHints = hints
        slotExactNames = exact
        self.ancestorCount = ancestorCount
        dependsOnZoom = entries.contains { !$0.zoomFilters.isEmpty }
        usesAncestors = entries.contains { $0.ancestor >= 0 }
        fullMask = entries.reduce(0) { $0 | $1.mask }
    }

    /// The style of one feature at `zoom`. See `StyleClassifier.style(layer:properties:zoom:inside:)`.
    public func style(
        properties: Properties, zoom: Int, inside: (AncestorSelectorID) -> Bool = { _ in false }
    ) -> ComputedStyle {
        var result = ComputedStyle()
        if entries.isEmpty { return result }
        let slotCount = slotNames.count
        withUnsafeTemporaryAllocation(of: Int.self, capacity: slotCount + ancestorCount + 1) { cache in
            // Slots: -2 unresolved, -1 missing, else the property index. Ancestors: -2 unknown, 0 no, 1 yes.
            cache.initialize(repeating: -2)
            let keys = properties.keys
            let values = properties.values
            var set: UInt32 = 0
            entryLoop: for e in entries {
                if e.mask & ~set == 0 { continue }
                for z in e.zoomFilters where !z.matches(zoom: zoom) { continue entryLoop }
                for f in e.filters {
                    var index = cache[f.slot]
                    if index == -2 {
                        index = resolve(f.slot, keys)
                        cache[f.slot] = index
                    }
                    if !f.test.matches(index >= 0 ? values[index] : nil) { continue entryLoop }
                }
                if e.ancestor >= 0 {
                    let c = slotCount + e.ancestor
                    if cache[c] == -2 { cache[c] = inside(AncestorSelectorID(rawValue: e.ancestor)) ? 1 : 0 }
                    if cache[c] == 0 { continue entryLoop }
                }
                for d in e.declarations where set & d.bit == 0 {
                    result.apply(d.property, d.value)
                    set |= d.bit
                }
                if set == fullMask { break }
            }
            cache.deinitialize()
        }
        return result
    }

    /// The property index of a slot's attribute in this feature, or -1.
    @inline(__always)
    private func resolve(_ slot: Int, _ keys: [String]) -> Int {
        let hint = slotHints[slot]
        if hint >= 0, hint < keys.count, keys[hint] == slotExactNames[slot] { return hint }
        let name = slotNames[slot]
        for i in keys.indices where equalsIgnoringCase(keys[i], lowercased: name) { return i }
        return -1
    }
}
