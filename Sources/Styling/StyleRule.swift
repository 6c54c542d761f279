/// A rule: a selector list and its declarations.
public struct StyleRule: Sendable, Hashable, CustomStringConvertible {
    /// The comma-separated selectors; the rule applies when any matches.
    public var selectors: [StyleSelector]
    /// The declarations in the order written (a later declaration of the same property wins).
    public var declarations: [StyleDeclaration]
    /// The position of the rule in the sheet, 0-based; a later rule wins a specificity tie.
    public var index: Int
    /// Where the rule starts.
    public var location: StyleLocation

    /// Creates a rule.
    public init(selectors: [StyleSelector], declarations: [StyleDeclaration], index: Int, location: StyleLocation) {
        self.selectors = selectors
        self.declarations = declarations
        self.index = index
        self.location = location
    }

    /// The value the rule gives a property (the last declaration of it), or nil.
    public func value(of property: StyleProperty) -> StyleValue? {
        declarations.last { $0.property == property }?.value
    }

    /// The rule as it would be written, on one line.
    public var description: String {
        selectors.map(\.description).joined(separator: ", ") + " { "
            + declarations.map { "\($0); " }.joined() + "}"
    }
}
