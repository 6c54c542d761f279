import Foundation
import Styling

/// Draws sprite images: the six fill patterns and the icon marker, as RGBA tiles in one colour on transparent
/// background. Shapes are defined in 1× units on a 16-unit tile (lines and dots every 8 units, so patterns repeat
/// seamlessly) and sampled 4×4 per pixel, so 1× and 2× images show the same picture. `SVGPattern` draws the same
/// shapes as SVG.
public enum PatternRaster {
    /// Pattern spacing in 1× pixels.
    static let spacing = 8.0
    /// Line width in 1× pixels.
    static let lineWidth = 1.25
    /// Dot radius in 1× pixels.
    static let dotRadius = 1.6
    /// Marker disk radius and ring radius in 1× pixels.
    static let markerRadius = 5.0
    static let markerRing = 6.5

    /// The image of `image` at `pixelRatio` (1 or 2 in sprites): `16 * pixelRatio` pixels square.
    public static func draw(_ image: SpriteImage, pixelRatio: Int) -> RGBAImage {
        let ratio = max(1, pixelRatio)
        let side = SpriteImage.size * ratio
        var out = RGBAImage(width: side, height: side)
        let c = image.color
        let alpha = Double(c.alpha) / 255
        let n = 4
        for py in 0..<side {
            for px in 0..<side {
                var cover = 0
                var ring = 0
                for sy in 0..<n {
                    for sx in 0..<n {
                        let u = (Double(px) + (Double(sx) + 0.5) / Double(n)) / Double(ratio)
                        let v = (Double(py) + (Double(sy) + 0.5) / Double(n)) / Double(ratio)
                        switch image.shape {
                        case .pattern(let p):
                            if inside(p, u, v) { cover += 1 }
                        case .marker:
                            let d = ((u - 8) * (u - 8) + (v - 8) * (v - 8)).squareRoot()
                            if d <= markerRadius {
                                cover += 1
                            } else if d <= markerRing {
                                ring += 1
                            }
                        }
                    }
                }
                let total = Double(n * n)
                if ring > 0 { out.blend(x: px, y: py, r: 255, g: 255, b: 255, alpha: Double(ring) / total * alpha) }
                if cover > 0 {
                    out.blend(x: px, y: py, r: c.red, g: c.green, b: c.blue, alpha: Double(cover) / total * alpha)
                }
            }
        }
        return out
    }

    /// Distance from `t` to the nearest multiple of `spacing` shifted by `offset`.
    private static func gap(_ t: Double, offset: Double) -> Double {
        let m = (t - offset).truncatingRemainder(dividingBy: spacing)
        let r = m < 0 ? m + spacing : m
        return min(r, spacing - r)
    }

    /// True when the point (u, v) in 1× units lies on the pattern's ink.
    static func inside(_ p: FillPattern, _ u: Double, _ v: Double) -> Bool {
        let half = lineWidth / 2
        let diagonal = half * 2.0.squareRoot()  // a distance along an axis for a 45° line
        switch p {
        case .diagonalHatch:
            return gap(u + v, offset: 0) <= diagonal
        case .crossHatch:
            return gap(u + v, offset: 0) <= diagonal || gap(u - v, offset: 0) <= diagonal
        case .horizontal:
            return gap(v, offset: 4) <= half
        case .vertical:
            return gap(u, offset: 4) <= half
        case .grid:
            return gap(v, offset: 4) <= half || gap(u, offset: 4) <= half
        case .dots:
            let du = gap(u, offset: 4)
            let dv = gap(v, offset: 4)
            return du * du + dv * dv <= dotRadius * dotRadius
        }
    }
}
