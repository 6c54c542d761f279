/// Why a `=~` pattern was refused: a syntax error or a construct the linear-time matcher does not support.
public struct StyleRegexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// 0-based offset (in Unicode scalars) into the pattern where the problem is.
    public var offset: Int

    /// The message with its position.
    public var description: String { "\(message) (at character \(offset + 1) of the pattern)" }
}

/// A set of scalars: ranges, Unicode classes (`\d \w \s`), negated as a whole.
struct RegexCharSet: Sendable, Hashable {
    enum Item: Sendable, Hashable {
        case range(UInt32, UInt32)
        case digit(negated: Bool)
        case word(negated: Bool)
        case space(negated: Bool)
    }
    var items: [Item] = []
    var negated = false
    var caseInsensitive = false

    func contains(_ s: Unicode.Scalar) -> Bool {
        var hit = rawContains(s)
        if !hit && caseInsensitive {
            for v in RegexCase.variants(of: s) where v != s && rawContains(v) {
                hit = true
                break
            }
        }
        return hit != negated
    }

    private func rawContains(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        for item in items {
            switch item {
            case .range(let lo, let hi): if v >= lo && v <= hi { return true }
            case .digit(let n): if RegexCase.isDigit(s) != n { return true }
            case .word(let n): if RegexCase.isWord(s) != n { return true }
            case .space(let n): if s.properties.isWhitespace != n { return true }
            }
        }
        return false
    }
}

/// Unicode helpers shared by the parser and the matcher.
enum RegexCase {
    /// The scalar and its single-scalar lower, upper and title case mappings.
    static func variants(of s: Unicode.Scalar) -> [Unicode.Scalar] {
        var out = [s]
        for mapped in [s.properties.lowercaseMapping, s.properties.uppercaseMapping, s.properties.titlecaseMapping] {
            let scalars = mapped.unicodeScalars
            if scalars.count == 1, let m = scalars.first, !out.contains(m) { out.append(m) }
        }
        return out
    }

    /// `\d`: a Unicode decimal digit.
    static func isDigit(_ s: Unicode.Scalar) -> Bool { s.properties.generalCategory == .decimalNumber }

    /// `\w`: a letter, mark, digit or connector punctuation (`_`).
    static func isWord(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark,
            .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation:
            return true
        default:
            return s.properties.isAlphabetic
        }
    }
}

/// The parsed form of a pattern.
indirect enum RegexNode: Sendable {
    case empty
    case literal(Unicode.Scalar, caseInsensitive: Bool)
    case any(dotAll: Bool)
    case set(RegexCharSet)
    case assertion(RegexAssertion)
    case concat([RegexNode])
    case alternation([RegexNode])
    /// `max == nil` means unbounded.
    case repeated(RegexNode, min: Int, max: Int?)
}

/// Zero-width tests.
enum RegexAssertion: Sendable, Hashable {
    case textStart, textEnd, lineStart, lineEnd, wordBoundary, notWordBoundary
}

/// Parses the supported syntax (docs/styles.md, "Regular expressions"): literals and escapes, `.`, classes
/// `[…]`, `\d \w \s` and their negations, anchors `^ $ \A \z \b \B`, groups `(…)`, `(?:…)`, `(?<name>…)`,
/// alternation, the quantifiers `* + ? {n} {n,} {n,m}` (lazy forms too) and the flags `(?i)`, `(?s)`, `(?m)`,
/// `(?i:…)`. Backreferences, lookaround, possessive quantifiers and atomic groups are refused: they cannot be
/// matched in time linear in the text.
struct RegexParser {
    /// The largest count allowed in `{n,m}`.
    static let maxRepeat = 1000

    struct Flags {
        var caseInsensitive = false
        var dotAll = false
        var multiline = false
    }

    private let scalars: [Unicode.Scalar]
    private var i = 0

    init(_ pattern: String) { scalars = Array(pattern.unicodeScalars) }

    /// The pattern's syntax tree.
    static func parse(_ pattern: String) throws(StyleRegexError) -> RegexNode {
        var p = RegexParser(pattern)
        var flags = Flags()
        let node = try p.parseAlternation(&flags, depth: 0)
        if p.i < p.scalars.count {
            throw p.fail(p.scalars[p.i] == ")" ? "unbalanced ')'" : "unexpected '\(p.scalars[p.i])'")
        }
        return node
    }

    private func fail(_ message: String, at offset: Int? = nil) -> StyleRegexError {
        StyleRegexError(message: message, offset: offset ?? min(i, max(0, scalars.count - 1)))
    }

    private var peek: Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

    private mutating func parseAlternation(_ flags: inout Flags, depth: Int) throws(StyleRegexError) -> RegexNode {
        guard depth < 64 else { throw fail("groups are nested more than 64 deep") }
        var branches: [RegexNode] = [try parseConcat(&flags, depth: depth)]
        while peek == "|" {
            i += 1
            branches.append(try parseConcat(&flags, depth: depth))
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseConcat(_ flags: inout Flags, depth: Int) throws(StyleRegexError) -> RegexNode {
        var items: [RegexNode] = []
        while let c = peek, c != "|", c != ")" {
            let start = i
            guard let atom = try parseAtom(&flags, depth: depth) else { continue }
            items.append(try parseQuantifiers(atom, start: start))
        }
        if items.isEmpty { return .empty }
        return items.count == 1 ? items[0] : .concat(items)
    }

    private mutating func parseQuantifiers(_ atom: RegexNode, start: Int) throws(StyleRegexError) -> RegexNode {
        var node = atom
        var quantified = false
        while let c = peek {
            var range: (Int, Int?)
            switch c {
            case "*": range = (0, nil)
            case "+": range = (1, nil)
            case "?": range = (0, 1)
            case "{":
                guard let counted = try parseCount() else { return node }
                range = counted
            default: return node
            }
            if c != "{" { i += 1 }
            if quantified {
                throw fail("a quantifier follows another quantifier; group the first one: (x*)+", at: i - 1)
            }
            if case .assertion = node { throw fail("an anchor cannot be repeated", at: start) }
            if peek == "+" { throw fail("possessive quantifiers (*+, ++, ?+) are not supported") }
            if peek == "?" { i += 1 }  // Lazy: the same set of matches for a yes/no search.
            node = .repeated(node, min: range.0, max: range.1)
            quantified = true
        }
        return node
    }

    /// `{n}`, `{n,}`, `{n,m}` at `{`; nil (and nothing consumed) when the brace is a literal, as in `a{x`.
    private mutating func parseCount() throws(StyleRegexError) -> (Int, Int?)? {
        var j = i + 1
        func number(_ j: inout Int) -> Int? {
            var value = 0
            var digits = 0
            while j < scalars.count, scalars[j].value >= 0x30, scalars[j].value <= 0x39 {
                value = min(value * 10 + Int(scalars[j].value - 0x30), 1_000_000)
                digits += 1
                j += 1
            }
            return digits > 0 ? value : nil
        }
        guard let lo = number(&j) else { return nil }
        var hi: Int? = lo
        if j < scalars.count, scalars[j] == "," {
            j += 1
            hi = number(&j)
        }
        guard j < scalars.count, scalars[j] == "}" else { return nil }
        let open = i
        i = j + 1
        if lo > Self.maxRepeat || (hi ?? 0) > Self.maxRepeat {
            throw fail("a repetition count above \(Self.maxRepeat)", at: open)
        }
        if let hi, hi < lo { throw fail("{\(lo),\(hi)}: the maximum is below the minimum", at: open) }
        return (lo, hi)
    }

    /// One atom; nil for a flag group such as `(?i)`, which changes `flags` and matches nothing.
    private mutating func parseAtom(_ flags: inout Flags, depth: Int) throws(StyleRegexError) -> RegexNode? {
        guard let c = peek else { throw fail("unexpected end of the pattern") }
        let start = i
        i += 1
        switch c {
        case ".": return .any(dotAll: flags.dotAll)
        case "^": return .assertion(flags.multiline ? .lineStart : .textStart)
        case "$": return .assertion(flags.multiline ? .lineEnd : .textEnd)
        case "[": return .set(try parseClass(flags))
        case "\\": return try parseEscape(flags)
        case "*", "+", "?": throw fail("'\(c)' has nothing to repeat", at: start)
        case "(": return try parseGroup(&flags, depth: depth, start: start)
        default: return .literal(c, caseInsensitive: flags.caseInsensitive)
        }
    }

    private mutating func parseGroup(_ flags: inout Flags, depth: Int, start: Int) throws(StyleRegexError)
        -> RegexNode?
    {
        var inner = flags
        if peek == "?" {
            i += 1
            guard let k = peek else { throw fail("unfinished group", at: start) }
            switch k {
            case ":": i += 1
            case "<" where i + 1 < scalars.count && (scalars[i + 1] == "=" || scalars[i + 1] == "!"):
                throw fail("lookbehind (?<= and (?<! is not supported", at: start)
            case "<", "P", "'":
                // Named group: the name is skipped; groups capture nothing here.
                if k == "P" { i += 1 }
                guard i < scalars.count, scalars[i] == "<" || scalars[i] == "'" else {
                    throw fail("unfinished group name", at: start)
                }
                let close: Unicode.Scalar = scalars[i] == "'" ? "'" : ">"
                i += 1
                while let n = peek, n != close {
                    guard n.properties.isAlphabetic || n == "_" || n.properties.numericType != nil else {
                        throw fail("bad group name", at: i)
                    }
                    i += 1
                }
                guard peek == close else { throw fail("unfinished group name", at: start) }
                i += 1
            case "=", "!": throw fail("lookahead (?= and (?! is not supported", at: start)
            case ">": throw fail("atomic groups (?> are not supported", at: start)
            default:
                // Flags: (?i) (?s) (?m) (?-i) and scoped (?i:…).
                var on = true
                var scoped = false
                while let f = peek {
                    i += 1
                    switch f {
                    case "i": inner.caseInsensitive = on
                    case "s": inner.dotAll = on
                    case "m": inner.multiline = on
                    case "-": on = false
                    case ")": break
                    case ":": scoped = true
                    default: throw fail("unsupported flag '\(f)' (supported: i, s, m)", at: i - 1)
                    }
                    if f == ")" || f == ":" { break }
                }
                if !scoped {
                    guard i > 0, scalars[i - 1] == ")" else { throw fail("unfinished flag group", at: start) }
                    flags = inner
                    return nil
                }
            }
        }
        let node = try parseAlternation(&inner, depth: depth + 1)
        guard peek == ")" else { throw fail("missing ')' for the group opened here", at: start) }
        i += 1
        return node
    }

    private mutating func parseEscape(_ flags: Flags) throws(StyleRegexError) -> RegexNode {
        let start = i - 1
        guard let e = peek else { throw fail("the pattern ends with a lone backslash", at: start) }
        i += 1
        switch e {
        case "d", "D": return .set(RegexCharSet(items: [.digit(negated: e == "D")]))
        case "w", "W": return .set(RegexCharSet(items: [.word(negated: e == "W")]))
        case "s", "S": return .set(RegexCharSet(items: [.space(negated: e == "S")]))
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "A": return .assertion(.textStart)
        case "z", "Z": return .assertion(.textEnd)
        case "1"..."9", "k", "g":
            throw fail("backreferences (\\\(e)…) are not supported: they cannot be matched in linear time", at: start)
        default:
            return .literal(try escapedScalar(e, start: start), caseInsensitive: flags.caseInsensitive)
        }
    }

    /// The scalar an escape such as `\n`, `\x41`, `\u{e9}` or `\.` stands for (`e` is already consumed).
    private mutating func escapedScalar(_ e: Unicode.Scalar, start: Int) throws(StyleRegexError) -> Unicode.Scalar {
        switch e {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "f": return "\u{0C}"
        case "v": return "\u{0B}"
        case "0": return "\0"
        case "x", "u":
            var digits = ""
            if peek == "{" {
                i += 1
                while let h = peek, h != "}" {
                    digits.unicodeScalars.append(h)
                    i += 1
                }
                guard peek == "}" else { throw fail("unfinished \\\(e){…}", at: start) }
                i += 1
            } else {
                for _ in 0..<(e == "x" ? 2 : 4) {
                    guard let h = peek else { break }
                    digits.unicodeScalars.append(h)
                    i += 1
                }
            }
            guard digits.count <= 8, let v = UInt32(digits, radix: 16), let s = Unicode.Scalar(v) else {
                throw fail("bad \\\(e) escape", at: start)
            }
            return s
        default:
            if e.properties.isAlphabetic || e.properties.numericType != nil {
                throw fail("unknown escape \\\(e)", at: start)
            }
            return e  // Escaped punctuation stands for itself.
        }
    }

    private mutating func parseClass(_ flags: Flags) throws(StyleRegexError) -> RegexCharSet {
        let start = i - 1
        var set = RegexCharSet()
        set.caseInsensitive = flags.caseInsensitive
        if peek == "^" {
            set.negated = true
            i += 1
        }
        var first = true
        while true {
            guard let c = peek else { throw fail("missing ']' for the class opened here", at: start) }
            if c == "]" && !first {
                i += 1
                return set
            }
            first = false
            if c == "[" && i + 1 < scalars.count && (scalars[i + 1] == ":" || scalars[i + 1] == "=") {
                throw fail("POSIX classes such as [:alpha:] are not supported; use \\w, \\d or a range", at: i)
            }
            i += 1
            var lo: Unicode.Scalar
            if c == "\\" {
                guard let e = peek else { throw fail("missing ']' for the class opened here", at: start) }
                i += 1
                switch e {
                case "d", "D":
                    set.items.append(.digit(negated: e == "D"))
                    continue
                case "w", "W":
                    set.items.append(.word(negated: e == "W"))
                    continue
                case "s", "S":
                    set.items.append(.space(negated: e == "S"))
                    continue
                case "b": lo = "\u{08}"
                default: lo = try escapedScalar(e, start: i - 2)
                }
            } else {
                lo = c
            }
            var hi = lo
            if peek == "-", i + 1 < scalars.count, scalars[i + 1] != "]" {
                i += 1
                guard let h = peek else { throw fail("missing ']' for the class opened here", at: start) }
                i += 1
                if h == "\\" {
                    guard let e = peek else { throw fail("missing ']'", at: start) }
                    i += 1
                    hi = try escapedScalar(e, start: i - 2)
                } else {
                    hi = h
                }
                guard hi.value >= lo.value else { throw fail("the range \(lo)-\(hi) is backwards", at: i - 1) }
            }
            set.items.append(.range(lo.value, hi.value))
        }
    }
}
