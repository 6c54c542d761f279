import Styling

/// SVG `<pattern>` definitions drawn like the sprite images (`PatternRaster`): 16-unit tiles, lines and dots
/// every 8 units, line width 1.25, in one colour. Only `<line>` and `<circle>` elements are used.
enum SVGPattern {
    /// The `<pattern>` element for `image` (a pattern sprite image), with `id` = the image name.
    static func definition(id: String, pattern: FillPattern, color: StyleColor) -> String {
        let stroke = SVGText.rgb((color.red, color.green, color.blue))
        let opacity = SVGText.num(Double(color.alpha) / 255)
        var body: [String] = []
        func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
            body.append(
                "<line x1=\"\(SVGText.num(x1))\" y1=\"\(SVGText.num(y1))\" x2=\"\(SVGText.num(x2))\" "
                    + "y2=\"\(SVGText.num(y2))\"/>")
        }
        let w = PatternRaster.lineWidth
        switch pattern {
        case .diagonalHatch, .crossHatch:
            for c in stride(from: 0.0, through: 32, by: 8) { line(c + 2, -2, c - 18, 18) }
            if pattern == .crossHatch {
                for c in stride(from: -16.0, through: 16, by: 8) { line(c - 2, -2, c + 18, 18) }
            }
        case .horizontal:
            for v in [4.0, 12] { line(-1, v, 17, v) }
        case .vertical:
            for u in [4.0, 12] { line(u, -1, u, 17) }
        case .grid:
            for v in [4.0, 12] { line(-1, v, 17, v) }
            for u in [4.0, 12] { line(u, -1, u, 17) }
        case .dots:
            for (u, v) in [(4.0, 4.0), (12, 4), (4, 12), (12, 12)] {
                body.append(
                    "<circle cx=\"\(SVGText.num(u))\" cy=\"\(SVGText.num(v))\" r=\"\(SVGText.num(PatternRaster.dotRadius))\"/>"
                )
            }
        }
        let group =
            pattern == .dots
            ? "<g fill=\"\(stroke)\" fill-opacity=\"\(opacity)\" stroke=\"none\">"
            : "<g stroke=\"\(stroke)\" stroke-opacity=\"\(opacity)\" stroke-width=\"\(SVGText.num(w))\" fill=\"none\">"
        return "<pattern id=\"\(SVGText.escape(id))\" patternUnits=\"userSpaceOnUse\" width=\"16\" height=\"16\">"
            + group + body.joined() + "</g></pattern>"
    }
}
