/// One problem found in a pipeline file: where (JSON path, or line and column for syntax errors) and what.
public struct PipelineSpecIssue: Sendable, Hashable, CustomStringConvertible {
    /// The JSON path of the offending value (`sources[1].minzom`); the root for file-level problems.
    public var path: JSONPath
    /// What is wrong, e.g. `unknown key; did you mean minZoom?`.
    public var message: String
    /// 1-based line of a syntax error.
    public var line: Int?
    /// 1-based column of a syntax error.
    public var column: Int?

    /// Creates an issue.
    public init(path: JSONPath, message: String, line: Int? = nil, column: Int? = nil) {
        self.path = path
        self.message = message
        self.line = line
        self.column = column
    }

    /// `sources[1].minzom: unknown key`, `3:14: expected ',' or '}'`, or the bare message at the root.
    public var description: String {
        if let line, let column { return "\(line):\(column): \(message)" }
        let p = path.description
        return p.isEmpty ? message : "\(p): \(message)"
    }
}
