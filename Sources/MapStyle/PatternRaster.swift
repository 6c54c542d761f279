import Foundation
/// Draws fill-pattern tiles (`PatternSpec`) as RGBA images: lines or dots in one colour, on the pattern's
/// background or transparent. A tile is `tileSide` pixels at 1× (two spacings), lines and dots repeat every
/// `tileSide / 2`, so tiles join seamlessly; 4×4 samples per pixel, so 1× and 2× images show the same picture.
/// `SVGPattern` draws the same shapes as SVG for the preview.
public enum PatternRaster {
    /// Dot radius as a multiple of the pattern width (1.6 px at the default width 1.25).
    static let dotRadiusFactor = 1.28

    /// The tile of `spec` at `pixelRatio`: `tileSide * pixelRatio` pixels square.
    public static func draw(_ spec: PatternSpec, pixelRatio: Int) -> RGBAImage {
        let ratio = max(1, pixelRatio)
        let side = spec.tileSide * ratio
        var out = RGBAImage(width: side, height: side)
        let c = spec.color
        let n = 4
        for py in 0..<side {
            for px in 0..<side {
                if let b = spec.background {
                    out.blend(x: px, y: py, r: b.red, g: b.green, b: b.blue, alpha: b.opacity)
                }
                var cover = 0
                for sy in 0..<n {
                    for sx in 0..<n {
                        let u = (Double(px) + (Double(sx) + 0.5) / Double(n)) / Double(ratio)
                        let v = (Double(py) + (Double(sy) + 0.5) / Double(n)) / Double(ratio)
                        if inside(spec, u, v) { cover += 1 }
                    }
                }
                if cover > 0 {
                    out.blend(
                        x: px, y: py, r: c.red, g: c.green, b: c.blue, alpha: Double(cover) / Double(n * n) * c.opacity)
                }
            }
        }
        return out
    }

    /// The repeat distance in 1× pixels.
    static func period(_ spec: PatternSpec) -> Double { Double(spec.tileSide) / 2 }

    /// Distance from `t` to the nearest multiple of `period` shifted by `offset`.
    private static func gap(_ t: Double, offset: Double, period: Double) -> Double {
        let m = (t - offset).truncatingRemainder(dividingBy: period)
        let r = m < 0 ? m + period : m
        return min(r, period - r)
    }

    /// True when the point (u, v) in 1× units lies on the pattern's ink.
    static func inside(_ spec: PatternSpec, _ u: Double, _ v: Double) -> Bool {
        let p = period(spec)
        let half = spec.width / 2
        let diagonal = half * 2.0.squareRoot()  // an axis distance for a 45° line
        switch spec.pattern {
        case .diagonalHatch: return gap(u + v, offset: 0, period: p) <= diagonal
        case .backwardDiagonal: return gap(u - v, offset: 0, period: p) <= diagonal
        case .crossHatch:
            return gap(u + v, offset: 0, period: p) <= diagonal || gap(u - v, offset: 0, period: p) <= diagonal
        case .horizontal: return gap(v, offset: p / 2, period: p) <= half
        case .vertical: return gap(u, offset: p / 2, period: p) <= half
        case .grid: return gap(v, offset: p / 2, period: p) <= half || gap(u, offset: p / 2, period: p) <= half
        case .dots:
            let r = spec.width * dotRadiusFactor
            let du = gap(u, offset: p / 2, period: p)
            let dv = gap(v, offset: p / 2, period: p)
            return du * du + dv * dv <= r * r
        }
    }
}
