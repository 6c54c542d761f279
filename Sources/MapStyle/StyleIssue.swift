/// A problem the validator found, with a JSON-pointer-like path (`layers[3].paint.fill-color`).
public struct StyleIssue: Sendable, Hashable, CustomStringConvertible {
    /// Where in the document.
    public var path: String
    /// What is wrong.
    public var message: String

    /// Creates an issue.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { "\(path): \(message)" }
}
