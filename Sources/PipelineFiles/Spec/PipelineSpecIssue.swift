import KartpackJSON

import KartpackJSON

/// One problem found in a pipeline file: where (JSON path, and the line and column in the file) and what.
package struct PipelineSpecIssue: Sendable, Hashable, CustomStringConvertible {
    /// The JSON path of the offending value (`sources[1].minzom`); the root for file-level problems.
    package var path: JSONPath
    /// What is wrong, e.g. `unknown key; did you mean minZoom?`.
    package var message: String
    /// 1-based line in the file (of a syntax error, or of the value the issue is about); nil for values that
    /// `--set` wrote.
    package var line: Int?
    /// 1-based column in the file, in characters.
    package var column: Int?

    /// Creates an issue.
    package init(path: JSONPath, message: String, line: Int? = nil, column: Int? = nil) {
        self.path = path
        self.message = message
        self.line = line
        self.column = column
    }

    /// `3:14: sources[1].minzom: unknown key`, `3:14: expected ',' or '}'`, `sources[1].minzom: …` for a value
    /// `--set` wrote, or the bare message at the root.
    package var description: String {
        let p = path.description
        let located = p.isEmpty ? message : "\(p): \(message)"
        if let line, let column { return "\(line):\(column): \(located)" }
        return located
    }
}

/// Where the values of a pipeline file are, so every issue can name its line and column.
///
/// Not part of a spec's identity: two specs that differ only in layout are equal.
package struct SpecLocations: Sendable, Hashable {
    private let values: [JSONValueLocation]
    /// Paths whose values came from `--set` (they have no place in the file).
    private let overridden: [JSONPath]

    package init(document: JSONParsedDocument? = nil, overridden: [JSONPath] = []) {
        values = document?.valueLocations ?? []
        self.overridden = overridden
    }

    /// The issue with the line and column of its value, or of the nearest enclosing value in the file; unchanged
    /// when it already has a place or when `--set` wrote the value.
    package func locate(_ issue: PipelineSpecIssue) -> PipelineSpecIssue {
        guard issue.line == nil, !values.isEmpty else { return issue }
        let components = issue.path.components
        if overridden.contains(where: { components.starts(with: $0.components) }) { return issue }
        var path = issue.path
        while true {
            if let found = values.first(where: { $0.path == path }) {
                var out = issue
                out.line = found.location.line
                out.column = found.location.column
                return out
            }
            if path.components.isEmpty { return issue }
            path = path.parent
        }
    }

    package static func == (a: SpecLocations, b: SpecLocations) -> Bool { true }
    package func hash(into hasher: inout Hasher) {}
}
