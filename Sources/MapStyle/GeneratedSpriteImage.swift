public import Styling

/// How a fill pattern is drawn: which pattern, in which colour, on which background, how dense.
public struct PatternSpec: Sendable, Hashable {
    /// The pattern.
    public var pattern: FillPattern
    /// The line / dot colour.
    public var color: StyleColor
    /// The colour behind the lines (transparent when nil).
    public var background: StyleColor?
    /// Distance between lines or dots in 1× pixels (the sheet's `pattern-spacing`, default 8).
    public var spacing: Double
    /// Line width or dot diameter in 1× pixels (the sheet's `pattern-width`, default 1.25).
    public var width: Double

    /// The defaults of `pattern-spacing` and `pattern-width`.
    public static let defaultSpacing = 8.0
    public static let defaultWidth = 1.25

    /// Creates a spec.
    public init(
        pattern: FillPattern, color: StyleColor, background: StyleColor? = nil, spacing: Double = defaultSpacing,
        width: Double = defaultWidth
    ) {
        self.pattern = pattern
        self.color = color
        self.background = background
        self.spacing = spacing
        self.width = width
    }

    /// The side of the repeating tile in 1× pixels: two spacings, so that every pattern repeats seamlessly.
    public var tileSide: Int { max(4, Int((spacing * 2).rounded())) }
}

/// One image of the generated sprite.
public struct GeneratedSpriteImage: Sendable, Hashable {
    /// What is drawn.
    public enum Shape: Sendable, Hashable {
        /// A repeating fill pattern.
        case pattern(PatternSpec)
        /// A built-in map symbol, in its own colour or the given one.
        case symbol(MapSymbol, StyleColor?)
        /// An SVG file (resolved path), drawn with librsvg.
        case svg(path: String)
    }

    /// The image name referenced by `fill-pattern` / `icon-image`.
    public var name: String
    /// What is drawn.
    public var shape: Shape

    /// Creates an image description.
    public init(name: String, shape: Shape) {
        self.name = name
        self.shape = shape
    }

    /// The size at 1× in pixels.
    public var size: (width: Int, height: Int) {
        switch shape {
        case .pattern(let p): (p.tileSide, p.tileSide)
        case .symbol: (MapSymbol.side, MapSymbol.side)
        case .svg: (MapSymbol.side, MapSymbol.side)
        }
    }

    /// `-rrggbb` (`-rrggbbaa` when not opaque).
    static func colorPart(_ c: StyleColor) -> String { "-" + c.hexString.dropFirst() }

    /// The name parts of a pattern: `pattern-NAME-COLOR[-bgCOLOR][-sSPACING][-wWIDTH]` (defaults left out).
    public static func patternName(_ p: PatternSpec) -> String {
        var s = "pattern-\(p.pattern.rawValue)" + colorPart(p.color)
        if let b = p.background { s += "-bg" + b.hexString.dropFirst() }
        if p.spacing != PatternSpec.defaultSpacing { s += "-s" + MapLibreStyle.formatNumber(p.spacing) }
        if p.width != PatternSpec.defaultWidth { s += "-w" + MapLibreStyle.formatNumber(p.width) }
        return s
    }

    /// `symbol-NAME` or `symbol-NAME-COLOR`.
    public static func symbolName(_ symbol: MapSymbol, _ color: StyleColor?) -> String {
        "symbol-\(symbol.rawValue)" + (color.map(colorPart) ?? "")
    }

    /// `icon-` and the file path as written, with every character outside `[A-Za-z0-9_-]` replaced by `_`.
    public static func fileIconName(_ path: String) -> String {
        var s = "icon-"
        for u in path.unicodeScalars {
            let v = u.value
            let ok = (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) || u == "-"
            s.unicodeScalars.append(ok ? u : "_")
        }
        return s
    }
}
