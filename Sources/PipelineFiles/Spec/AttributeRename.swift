/// One entry of a source's `rename` object: the attribute `from` is written as `to`.
package struct AttributeRename: Sendable, Hashable {
    /// The attribute name in the source's DBF.
    package var from: String
    /// The name written to the tiles.
    package var to: String

    /// Creates a rename.
    package init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}
