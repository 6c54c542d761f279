/// An attribute filter bound to an attribute slot of a `LayerStyleMatcher`.
struct CompiledFilter: Sendable {
    var slot: Int
    var test: AttributeFilter.Test
}

/// A declaration ready to apply, with its property's cascade bit.
struct AppliedDeclaration: Sendable {
    var property: StyleProperty
    var value: StyleValue
    var bit: UInt32
}

/// One selector of one rule, ready to match: the unit of the cascade.
struct CompiledEntry: Sendable {
    /// The rule's position in the sheet.
    var ruleIndex: Int
    /// The selector's position in the rule's selector list.
    var selectorIndex: Int
    /// The selector's specificity.
    var specificity: Specificity
    /// The subject layer, lower-cased; nil for `*`.
    var subjectLayer: String?
    /// The subject's attribute filters with lower-cased names (slots are bound per layer).
    var attributeFilters: [(name: String, test: AttributeFilter.Test)]
    /// The subject's filters bound to slots; filled in per layer.
    var filters: [CompiledFilter] = []
    /// The zoom filters of every compound.
    var zoomFilters: [ZoomFilter]
    /// The nearest ancestor set, or -1 for a simple selector.
    var ancestor: Int
    /// The rule's known declarations, one per property (the last one written).
    var declarations: [AppliedDeclaration]
    /// The union of the declarations' bits.
    var mask: UInt32
}
