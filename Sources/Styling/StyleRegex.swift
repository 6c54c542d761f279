/// A regular expression of an `=~` filter, compiled once when the sheet is parsed.
///
/// Kartpack runs its own matcher (a Pike VM over Thompson's NFA, `RegexMachine`) instead of Swift's backtracking
/// `Regex`: a pattern written by a stranger, such as `^(a+)+$` against forty `a`s and a `!`, must not run for
/// minutes. The work per attribute value is at most (value length × program size), and the program size is
/// capped (`RegexProgram.maxInstructions`); constructs that need backtracking — backreferences, lookaround,
/// possessive quantifiers, atomic groups — are refused when the sheet is parsed, with the reason and position.
///
/// The compiled program is immutable and shared by every thread without a lock. `matches(_:)` allocates its
/// small scratch lists per call; a worker that tests many values can keep its own reusable `Matcher`
/// (`makeMatcher()`, one per thread, never shared).
///
/// Matching is a search: anchor with `^` / `$` for a whole-value match; `(?i)` makes it case-insensitive. It works
/// on Unicode scalars (the supported syntax is in docs/styles.md, "Regular expressions").
public struct StyleRegex: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    private let program: RegexProgram

    /// Compiles a pattern; throws a `StyleRegexError` naming what is wrong or unsupported and where.
    public init(_ pattern: String) throws(StyleRegexError) {
        self.pattern = pattern
        program = try RegexProgram(RegexParser.parse(pattern))
    }

    /// True when the pattern matches somewhere in `text`. Safe to call from any thread.
    public func matches(_ text: String) -> Bool {
        RegexMachine(program: program).search(text)
    }

    /// A matcher with its own scratch space, for one thread.
    public func makeMatcher() -> Matcher { Matcher(machine: RegexMachine(program: program)) }

    /// Tests texts against one compiled pattern, reusing its scratch lists. Not thread-safe: one per thread.
    public final class Matcher {
        private let machine: RegexMachine
        init(machine: RegexMachine) { self.machine = machine }

        /// True when the pattern matches somewhere in `text`.
        public func matches(_ text: String) -> Bool { machine.search(text) }
    }

    /// The number of instructions the pattern compiled to (its cost per scalar of text).
    public var programSize: Int { program.instructions.count }

    /// Equal when the patterns are equal.
    public static func == (a: StyleRegex, b: StyleRegex) -> Bool { a.pattern == b.pattern }

    /// Hashes the pattern.
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    /// The pattern, quoted.
    public var description: String { quoteStyleString(pattern) }
}
