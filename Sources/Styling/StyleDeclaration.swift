/// One `name: value` declaration of a rule.
public struct StyleDeclaration: Sendable, Hashable, CustomStringConvertible {
    /// The property name as written.
    public var name: String
    /// The known property, or nil for an unknown name (which was warned about).
    public var property: StyleProperty?
    /// The checked value.
    public var value: StyleValue
    /// Where the name starts.
    public var location: StyleLocation

    /// Creates a declaration.
    public init(name: String, property: StyleProperty?, value: StyleValue, location: StyleLocation) {
        self.name = name
        self.property = property
        self.value = value
        self.location = location
    }

    /// `name: value`.
    public var description: String { "\(name): \(value)" }
}
