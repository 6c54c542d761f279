/// Why JSON text could not be parsed: what was wrong and where (byte offset, 1-based line and column).
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, e.g. `expected ',' or '}' after the value of "version", found '"'`.
    public var message: String
    /// The byte offset in the UTF-8 text.
    public var offset: Int
    /// 1-based line.
    public var line: Int
    /// 1-based column, in characters (UTF-8 continuation bytes do not count).
    public var column: Int

    /// Creates an error.
    public init(message: String, offset: Int, line: Int, column: Int) {
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// `message at byte N`.
    public var description: String { "\(message) at byte \(offset)" }
}
