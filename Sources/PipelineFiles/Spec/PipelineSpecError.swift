import KartpackCore

/// A pipeline file that cannot be used: every problem found, each with its JSON path.
///
/// Parsing collects all problems rather than stopping at the first, so `kartpack validate` can list them.
/// The exit code is `.config` (78), or `.noInput` (66) when the pipeline file itself cannot be read.
package struct PipelineSpecError: KartpackError, Sendable, Equatable {
    /// The pipeline file, as given.
    package var file: String
    /// Every problem, section by section (version, tiles, sources, style, clip, output), in file order within
    /// each section; `--set` problems first.
    package var issues: [PipelineSpecIssue]
    /// `.config`, or `.noInput` for an unreadable pipeline file.
    package var exitCode: ExitCode

    /// Creates an error.
    package init(file: String, issues: [PipelineSpecIssue], exitCode: ExitCode = .config) {
        self.file = file
        self.issues = issues
        self.exitCode = exitCode
    }

    /// One line per issue: `forest-plan.json:7:37: sources[1].minzom: unknown key; did you mean minZoom?`,
    /// `forest-plan.json:3:14: expected ...` for a syntax error, no line for a value `--set` wrote.
    package var description: String {
        issues.map { issue in
            if let line = issue.line, let column = issue.column {
                var shown = issue
                shown.line = nil
                return "\(file):\(line):\(column): \(shown.description)"
            }
            return "\(file): \(issue.description)"
        }.joined(separator: "\n")
    }

    /// The issue messages as printed (without the file), for tests and reports.
    package var lines: [String] { issues.map(\.description) }
}
