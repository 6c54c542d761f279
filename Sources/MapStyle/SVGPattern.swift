/// SVG `<pattern>` definitions drawn like the sprite tiles (`PatternRaster`): the same period, line width, dot
/// radius, colour and background. Only `<rect>`, `<line>` and `<circle>` elements are used.
enum SVGPattern {
    /// The `<pattern>` element for `spec`, with `id`.
    static func definition(id: String, spec: PatternSpec) -> String {
        let side = Double(spec.tileSide)
        let p = PatternRaster.period(spec)
        let color = spec.color
        let stroke = SVGText.rgb((color.red, color.green, color.blue))
        let opacity = SVGText.num(color.opacity)
        var body: [String] = []
        func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
            body.append(
                "<line x1=\"\(SVGText.num(x1))\" y1=\"\(SVGText.num(y1))\" x2=\"\(SVGText.num(x2))\" "
                    + "y2=\"\(SVGText.num(y2))\"/>")
        }
        let offsets = stride(from: -2 * side, through: 2 * side, by: p)
        switch spec.pattern {
        case .diagonalHatch, .backwardDiagonal, .crossHatch:
            if spec.pattern != .backwardDiagonal { for c in offsets { line(c + side + 1, -1, c - 1, side + 1) } }
            if spec.pattern != .diagonalHatch { for c in offsets { line(c - 1, -1, c + side + 1, side + 1) } }
        case .horizontal, .vertical, .grid:
            for k in stride(from: p / 2, to: side, by: p) {
                if spec.pattern != .vertical { line(-1, k, side + 1, k) }
                if spec.pattern != .horizontal { line(k, -1, k, side + 1) }
            }
        case .dots:
            let r = SVGText.num(spec.width * PatternRaster.dotRadiusFactor)
            for x in stride(from: p / 2, to: side, by: p) {
                for y in stride(from: p / 2, to: side, by: p) {
                    body.append("<circle cx=\"\(SVGText.num(x))\" cy=\"\(SVGText.num(y))\" r=\"\(r)\"/>")
                }
            }
        }
        let group =
            spec.pattern == .dots
            ? "<g fill=\"\(stroke)\" fill-opacity=\"\(opacity)\" stroke=\"none\">"
            : "<g stroke=\"\(stroke)\" stroke-opacity=\"\(opacity)\" "
                + "stroke-width=\"\(SVGText.num(spec.width))\" fill=\"none\">"
        var background = ""
        if let b = spec.background {
            background =
                "<rect x=\"0\" y=\"0\" width=\"\(SVGText.num(side))\" height=\"\(SVGText.num(side))\" "
                + "fill=\"\(SVGText.rgb((b.red, b.green, b.blue)))\" fill-opacity=\"\(SVGText.num(b.opacity))\"/>"
        }
        return "<pattern id=\"\(SVGText.escape(id))\" patternUnits=\"userSpaceOnUse\" width=\"\(SVGText.num(side))\" "
            + "height=\"\(SVGText.num(side))\">" + background + group + body.joined() + "</g></pattern>"
    }
}
