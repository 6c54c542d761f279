/// One entry of a source's `rename` object: the attribute `from` is written as `to`.
public struct AttributeRename: Sendable, Hashable {
    /// The attribute name in the source's DBF.
    public var from: String
    /// The name written to the tiles.
    public var to: String

    /// Creates a rename.
    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}
