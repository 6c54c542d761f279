/// A parsed `.kss` stylesheet: rules and examples.
///
/// Syntax summary (CSS):
/// - Comments `/* … */`. A rule is `SELECTOR, SELECTOR { name: value; … }` (the last `;` is optional).
/// - A selector is a compound — a layer name or `*`, then filters written directly after it — or a descendant
///   chain of compounds separated by whitespace (`A B`, `A B C`); ancestors must name a layer.
/// - Filters: `[a]`, `[a = null]`, `[a = v]`, `[a != v]`, `[a < n]`, `<=`, `>`, `>=`, `[a ^= "p"]`, `[a $= "s"]`,
///   `[a *= "p"]`, `[a =~ "regex"]`, `[zoom OP n]`. The bare word `zoom` (any case) is the zoom level; write
///   `["zoom" = 3]` for an attribute named zoom. Attribute names may be quoted.
/// - Values: numbers (`3`, `-2.5`, `.5`, `1e3`), strings in `"…"` or `'…'` with the escapes `\"`, `\'`, `\\`, `\/`,
///   `\n`, `\r`, `\t`, `\uXXXX` and `\u{X…}` (a string may not span lines), bare words (letters, digits, `_`, `-`,
///   any non-ASCII letter), `null`, `true`, `false`.
/// - `@example LAYER { … }` blocks; see `StyleExample`. `@map { background: COLOR; }`; see `MapSettings`.
public struct Stylesheet: Sendable, Hashable {
    /// The file name given to the parser, used in diagnostics.
    public var file: String
    /// The rules in sheet order (`StyleRule.index` is the position).
    public var rules: [StyleRule]
    /// The examples in sheet order.
    public var examples: [StyleExample]
    /// The `@map { … }` settings.
    public var map: MapSettings

    /// Creates a sheet from parts.
    public init(file: String, rules: [StyleRule], examples: [StyleExample], map: MapSettings = MapSettings()) {
        self.file = file
        self.rules = rules
        self.examples = examples
        self.map = map
    }

    /// Parses a sheet. The sheet is nil when any diagnostic is an error; warnings come with a usable sheet.
    /// Diagnostics are sorted by position.
    public static func parse(_ text: String, file: String) -> (Stylesheet?, [StyleDiagnostic]) {
        var parser = StyleParser(text: text, file: file)
        parser.parse()
        let diagnostics = parser.diagnostics.enumerated()
            .sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map(\.element)
        if diagnostics.hasErrors { return (nil, diagnostics) }
        return (Stylesheet(file: file, rules: parser.rules, examples: parser.examples, map: parser.map), diagnostics)
    }

    /// Every class name a rule sets, in order of first appearance.
    public var classNames: [String] {
        var seen: Set<String> = []
        var out: [String] = []
        for rule in rules {
            for d in rule.declarations where d.property == .className {
                if case .text(let name) = d.value, seen.insert(name).inserted { out.append(name) }
            }
        }
        return out
    }

    /// The class names that rules whose subject could select a feature of `layer` (named or `*`) set, in order of
    /// first appearance.
    public func possibleClassNames(layer: String) -> [String] {
        var seen: Set<String> = []
        var out: [String] = []
        for rule in rules where rule.selectors.contains(where: { $0.subject.appliesTo(layer: layer) }) {
            for d in rule.declarations where d.property == .className {
                if case .text(let name) = d.value, seen.insert(name).inserted { out.append(name) }
            }
        }
        return out
    }
}
