import KartpackCore

/// An error or warning about a stylesheet, with the file and 1-based line and column it refers to.
public struct StyleDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious the problem is: errors make the sheet unusable, warnings do not.
    public var severity: Severity
    /// A stable snake_case reason (`unterminated_string`, `unknown_property`, …) that is never reworded.
    public var code: String
    /// The stylesheet's file name as given to the parser.
    public var file: String
    /// The 1-based line.
    public var line: Int
    /// The 1-based column in Unicode scalars.
    public var column: Int
    /// The human-readable message.
    public var message: String

    /// Creates a diagnostic.
    public init(_ severity: Severity, code: String, file: String, line: Int, column: Int, message: String) {
        self.severity = severity
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// Creates a diagnostic at a source location.
    public init(_ severity: Severity, code: String, file: String, at location: StyleLocation, _ message: String) {
        self.init(severity, code: code, file: file, line: location.line, column: location.column, message: message)
    }

    /// The position as a `StyleLocation`.
    public var location: StyleLocation { StyleLocation(line: line, column: column) }

    /// `file:line:column: error: message`, the form compilers print.
    public var description: String { "\(file):\(line):\(column): \(severity.rawValue): \(message)" }
}

extension Array where Element == StyleDiagnostic {
    /// True when any diagnostic is an error.
    public var hasErrors: Bool { contains { $0.severity == .error } }
}
