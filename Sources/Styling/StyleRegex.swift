import Synchronization

/// A regular expression of an `=~` filter, compiled once when the sheet is parsed.
///
/// Swift's `Regex` is not `Sendable`, so the compiled expression lives behind a `Mutex`; two features tested
/// against the same expression on different threads take turns. Matching is a search (`contains`): anchor with
/// `^` / `$` for a whole-value match; `(?i)` at the start makes it case-insensitive.
public struct StyleRegex: Sendable, Hashable, CustomStringConvertible {
    private final class Box: Sendable {
        let regex: Mutex<Regex<AnyRegexOutput>>
        init(_ regex: sending Regex<AnyRegexOutput>) { self.regex = Mutex(regex) }
    }

    /// The pattern as written.
    public let pattern: String
    private let box: Box

    /// Compiles a pattern; throws the regex parser's error when it is invalid.
    public init(_ pattern: String) throws {
        self.pattern = pattern
        box = Box(try Regex(pattern))
    }

    /// True when the pattern matches somewhere in `text`.
    public func matches(_ text: String) -> Bool {
        box.regex.withLock { regex in text.contains(regex) }
    }

    /// Equal when the patterns are equal.
    public static func == (a: StyleRegex, b: StyleRegex) -> Bool { a.pattern == b.pattern }

    /// Hashes the pattern.
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    /// The pattern, quoted.
    public var description: String { quoteStyleString(pattern) }
}
