import Foundation
import GeometryAlgorithms
public import Styling

/// The built-in map symbols for `icon: NAME`: distinct shapes on a 20-pixel square with a white halo, each in its
/// own colour unless the feature's `fill` sets one. `MapSymbol.raster` draws them (Kartpack's own rasteriser, used
/// for the sprite); `svg` writes the same shapes as SVG (for the preview, and to measure librsvg against).
public enum MapSymbol: String, Sendable, Hashable, CaseIterable {
    case dot, square, triangle, diamond, star, cross, monument, burial, charcoal, pit, house, tree

    /// The side of a symbol at 1× in pixels.
    public static let side = 20
    /// The halo around the ink in pixels.
    static let halo = 1.5

    /// A part of a symbol in 20-unit coordinates.
    enum Part {
        case polygon([Point2])
        case line([Point2], width: Double, closed: Bool)
        case disk(Point2, Double)
        case ring(Point2, Double, width: Double)
    }

    /// The symbol's own colour.
    public var defaultColor: StyleColor {
        switch self {
        case .dot, .square, .triangle, .diamond, .star, .cross: StyleColor(red: 0x37, green: 0x47, blue: 0x4f)
        case .monument: StyleColor(red: 0xb7, green: 0x1c, blue: 0x1c)
        case .burial: StyleColor(red: 0x6d, green: 0x4c, blue: 0x41)
        case .charcoal: StyleColor(red: 0x42, green: 0x42, blue: 0x42)
        case .pit: StyleColor(red: 0x4e, green: 0x34, blue: 0x2e)
        case .house: StyleColor(red: 0x5d, green: 0x40, blue: 0x37)
        case .tree: StyleColor(red: 0x2e, green: 0x7d, blue: 0x32)
        }
    }

    var parts: [Part] {
        func p(_ x: Double, _ y: Double) -> Point2 { Point2(x: x, y: y) }
        switch self {
        case .dot: return [.disk(p(10, 10), 5)]
        case .square: return [.polygon([p(5, 5), p(15, 5), p(15, 15), p(5, 15)])]
        case .triangle: return [.polygon([p(10, 3.5), p(16.5, 15.5), p(3.5, 15.5)])]
        case .diamond: return [.polygon([p(10, 3), p(17, 10), p(10, 17), p(3, 10)])]
        case .star:
            let pts = (0..<10).map { i -> Point2 in
                let a = Double(i) * Double.pi / 5 - Double.pi / 2
                let r = i % 2 == 0 ? 7.5 : 3.2
                return p(10 + r * cos(a), 10.5 + r * sin(a))
            }
            return [.polygon(pts)]
        case .cross:
            return [
                .line([p(10, 4), p(10, 16)], width: 3, closed: false),
                .line([p(4, 10), p(16, 10)], width: 3, closed: false),
            ]
        case .monument: return [.ring(p(10, 10), 5.5, width: 2), .disk(p(10, 10), 2)]
        case .burial:
            let arc = (0...12).map { i -> Point2 in
                let a = Double.pi + Double(i) * Double.pi / 12
                return p(10 + 7 * cos(a), 14 + 7 * sin(a))
            }
            return [.polygon(arc)]
        case .charcoal:
            let hex = (0..<6).map { i -> Point2 in
                let a = Double(i) * Double.pi / 3
                return p(10 + 6.5 * cos(a), 10 + 6.5 * sin(a))
            }
            return [.polygon(hex)]
        case .pit: return [.line([p(4, 5), p(16, 5), p(10, 15.5)], width: 2, closed: true)]
        case .house:
            return [.polygon([p(4, 10), p(10, 4), p(16, 10), p(14.5, 10), p(14.5, 16), p(5.5, 16), p(5.5, 10)])]
        case .tree:
            return [
                .polygon([p(10, 3), p(15.5, 13), p(4.5, 13)]),
                .polygon([p(9, 12.5), p(11, 12.5), p(11, 17), p(9, 17)]),
            ]
        }
    }

    // MARK: Own rasteriser

    /// The symbol at `pixelRatio` (side `20 * pixelRatio`), 4×4 samples per pixel: the halo in white, then the ink.
    public func raster(color: StyleColor?, pixelRatio: Int) -> RGBAImage {
        let ratio = max(1, pixelRatio)
        let side = Self.side * ratio
        var out = RGBAImage(width: side, height: side)
        let c = color ?? defaultColor
        let parts = self.parts
        let n = 4
        for py in 0..<side {
            for px in 0..<side {
                var ink = 0
                var halo = 0
                for sy in 0..<n {
                    for sx in 0..<n {
                        let q = Point2(
                            x: (Double(px) + (Double(sx) + 0.5) / Double(n)) / Double(ratio),
                            y: (Double(py) + (Double(sy) + 0.5) / Double(n)) / Double(ratio))
                        let d = parts.map { Self.distance(q, $0) }.min() ?? .infinity
                        if d <= 0 { ink += 1 } else if d <= Self.halo { halo += 1 }
                    }
                }
                let total = Double(n * n)
                let haloCover = Double(halo + ink) / total
                if haloCover > 0 { out.blend(x: px, y: py, r: 255, g: 255, b: 255, alpha: haloCover) }
                if ink > 0 {
                    out.blend(x: px, y: py, r: c.red, g: c.green, b: c.blue, alpha: Double(ink) / total * c.opacity)
                }
            }
        }
        return out
    }

    /// Distance from q to the ink of a part (≤ 0 inside).
    static func distance(_ q: Point2, _ part: Part) -> Double {
        switch part {
        case .polygon(let pts):
            let edge = edgeDistance(q, pts, closed: true)
            return contains(q, pts) ? -edge : edge
        case .line(let pts, let w, let closed):
            return edgeDistance(q, pts, closed: closed) - w / 2
        case .disk(let c, let r):
            return ((q.x - c.x) * (q.x - c.x) + (q.y - c.y) * (q.y - c.y)).squareRoot() - r
        case .ring(let c, let r, let w):
            return abs(((q.x - c.x) * (q.x - c.x) + (q.y - c.y) * (q.y - c.y)).squareRoot() - r) - w / 2
        }
    }

    static func edgeDistance(_ q: Point2, _ pts: [Point2], closed: Bool) -> Double {
        var best = Double.infinity
        let count = closed ? pts.count : pts.count - 1
        for i in 0..<max(0, count) {
            let a = pts[i]
            let b = pts[(i + 1) % pts.count]
            let dx = b.x - a.x
            let dy = b.y - a.y
            let len2 = dx * dx + dy * dy
            let t = len2 > 0 ? max(0, min(1, ((q.x - a.x) * dx + (q.y - a.y) * dy) / len2)) : 0
            let x = a.x + t * dx - q.x
            let y = a.y + t * dy - q.y
            best = min(best, (x * x + y * y).squareRoot())
        }
        return best
    }

    static func contains(_ q: Point2, _ pts: [Point2]) -> Bool {
        var inside = false
        var j = pts.count - 1
        for i in 0..<pts.count {
            let a = pts[i]
            let b = pts[j]
            if (a.y > q.y) != (b.y > q.y), q.x < (b.x - a.x) * (q.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    // MARK: SVG

    /// The symbol's elements (halo, then ink), for embedding in a 20-unit coordinate system.
    public func svgElements(color: StyleColor?) -> String {
        let c = color ?? defaultColor
        let ink = SVGText.rgb((c.red, c.green, c.blue))
        let inkOpacity = SVGText.num(c.opacity)
        func pts(_ list: [Point2]) -> String {
            list.map { "\(SVGText.num($0.x)),\(SVGText.num($0.y))" }.joined(separator: " ")
        }
        func element(_ part: Part, halo: Bool) -> String {
            let paint = halo ? "#ffffff" : ink
            let h = halo ? 2 * Self.halo : 0
            let opacity = halo ? "" : " opacity=\"\(inkOpacity)\""
            let round = " stroke-linejoin=\"round\" stroke-linecap=\"round\""
            switch part {
            case .polygon(let list):
                let stroke = halo ? " stroke=\"\(paint)\" stroke-width=\"\(SVGText.num(h))\"\(round)" : ""
                return "<polygon points=\"\(pts(list))\" fill=\"\(paint)\"\(stroke)\(opacity)/>"
            case .line(let list, let w, let closed):
                let tag = closed ? "polygon" : "polyline"
                return "<\(tag) points=\"\(pts(list))\" fill=\"none\" stroke=\"\(paint)\" "
                    + "stroke-width=\"\(SVGText.num(w + h))\"\(round)\(opacity)/>"
            case .disk(let center, let r):
                return "<circle cx=\"\(SVGText.num(center.x))\" cy=\"\(SVGText.num(center.y))\" "
                    + "r=\"\(SVGText.num(r + h / 2))\" fill=\"\(paint)\"\(opacity)/>"
            case .ring(let center, let r, let w):
                return
                    "<circle cx=\"\(SVGText.num(center.x))\" cy=\"\(SVGText.num(center.y))\" r=\"\(SVGText.num(r))\" "
                    + "fill=\"none\" stroke=\"\(paint)\" stroke-width=\"\(SVGText.num(w + h))\"\(opacity)/>"
            }
        }
        return parts.map { element($0, halo: true) }.joined() + parts.map { element($0, halo: false) }.joined()
    }

    /// A whole SVG document of the symbol, `side × side` pixels (for librsvg).
    public func svgDocument(color: StyleColor?, side: Int = MapSymbol.side) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(side)\" height=\"\(side)\" viewBox=\"0 0 20 20\">"
            + svgElements(color: color) + "</svg>"
    }
}
