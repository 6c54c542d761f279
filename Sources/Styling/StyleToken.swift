/// The operators a filter may use (lexer level).
enum FilterOperator: String, Sendable, Hashable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case prefix = "^="
    case suffix = "$="
    case contains = "*="
    case regex = "=~"

    /// The comparison operator, for the six that are one.
    var comparison: ComparisonOperator? { ComparisonOperator(rawValue: rawValue) }
}

/// One lexical token of a stylesheet.
struct StyleToken: Sendable {
    enum Kind: Sendable, Equatable {
        case word, number, string, hash, atKeyword
        /// `url(…)`; the text is the path inside.
        case url
        case leftBrace, rightBrace, leftBracket, rightBracket, colon, semicolon, comma, star
        case op(FilterOperator)
        /// A run of operator characters that is no known operator (`==`, `~=`, `<>`).
        case badOperator
        case eof
    }

    var kind: Kind
    /// The word, the decoded string, the number as written, the hash digits (without `#`), the at-keyword
    /// (without `@`), or the punctuation.
    var text: String
    var location: StyleLocation
    /// True when whitespace or a comment comes right before the token.
    var spaceBefore: Bool

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .eof: "end of file"
        case .string: "string \(quoteStyleString(text))"
        case .hash: "'#\(text)'"
        case .atKeyword: "'@\(text)'"
        case .url: "url(\(quoteStyleString(text)))"
        default: "'\(text)'"
        }
    }
}
