/// A position in a stylesheet: 1-based line and 1-based column, where the column counts Unicode scalars.
public struct StyleLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 1-based line number.
    public var line: Int
    /// The 1-based column, counted in Unicode scalars (a tab counts as one).
    public var column: Int

    /// Creates a location.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }

    /// Orders by line, then column.
    public static func < (a: StyleLocation, b: StyleLocation) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }
}
