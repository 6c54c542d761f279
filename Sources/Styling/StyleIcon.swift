/// What an `icon` declaration names: a built-in map symbol or an SVG file.
public enum StyleIcon: Sendable, Hashable, CustomStringConvertible {
    /// A built-in symbol, e.g. `icon: burial` (the client sprite draws it; unknown names get a warning).
    case symbol(String)
    /// `icon: url("icons/fornlamning.svg")`: an SVG file, relative to the stylesheet's folder.
    case file(String)

    /// The value as written in a sheet.
    public var description: String {
        switch self {
        case .symbol(let s): s
        case .file(let p): "url(\(quoteStyleString(p)))"
        }
    }
}
