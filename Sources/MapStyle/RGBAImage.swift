/// An RGBA8 image with straight (not premultiplied) alpha, rows top to bottom.
public struct RGBAImage: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A per pixel.
    public var pixels: [UInt8]

    /// A transparent image.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        pixels = [UInt8](repeating: 0, count: self.width * self.height * 4)
    }

    /// The pixel at (x, y) as (r, g, b, a).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// Sets the pixel at (x, y).
    public mutating func setPixel(x: Int, y: Int, _ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) {
        let i = (y * width + x) * 4
        pixels[i] = p.r
        pixels[i + 1] = p.g
        pixels[i + 2] = p.b
        pixels[i + 3] = p.a
    }

    /// Copies `other` into this image with its top-left corner at (x, y); pixels outside are dropped.
    public mutating func place(_ other: RGBAImage, x: Int, y: Int) {
        for row in 0..<other.height where y + row >= 0 && y + row < height {
            for col in 0..<other.width where x + col >= 0 && x + col < width {
                setPixel(x: x + col, y: y + row, other.pixel(x: col, y: row))
            }
        }
    }

    /// Composites colour (r, g, b) with coverage `alpha` (0…1) over the pixel at (x, y) ("source over").
    mutating func blend(x: Int, y: Int, r: UInt8, g: UInt8, b: UInt8, alpha: Double) {
        guard alpha > 0 else { return }
        let dst = pixel(x: x, y: y)
        let da = Double(dst.a) / 255
        let sa = min(alpha, 1)
        let oa = sa + da * (1 - sa)
        guard oa > 0 else { return }
        func mix(_ s: UInt8, _ d: UInt8) -> UInt8 {
            UInt8(min(255, max(0, ((Double(s) * sa + Double(d) * da * (1 - sa)) / oa).rounded())))
        }
        setPixel(x: x, y: y, (mix(r, dst.r), mix(g, dst.g), mix(b, dst.b), UInt8((oa * 255).rounded())))
    }
}
