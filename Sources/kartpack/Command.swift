import KartpackCore

/// A subcommand: parses its arguments, validates, runs, returns an exit code.
protocol Command {
    /// The word on the command line.
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// Full help text.
    static var help: String { get }
    /// The options it declares (`--help` is every command's own).
    static var options: [OptionSpec] { get }
    /// Parses and validates the arguments (usage errors throw).
    init(arguments: [String]) throws(UsageError)
    /// Runs the command.
    func run() throws -> ExitCode
}
