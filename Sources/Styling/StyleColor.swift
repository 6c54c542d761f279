/// An sRGB colour with alpha, written in a sheet as `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`.
public struct StyleColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0…255.
    public var red: UInt8
    /// Green, 0…255.
    public var green: UInt8
    /// Blue, 0…255.
    public var blue: UInt8
    /// Alpha, 0 (transparent) … 255 (opaque).
    public var alpha: UInt8

    /// Creates a colour from its components.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Parses the hex digits after `#` (3, 4, 6 or 8 of them); nil when they are not a colour.
    public init?(hex: some StringProtocol) {
        var digits: [UInt8] = []
        for u in hex.unicodeScalars {
            switch u.value {
            case 0x30...0x39: digits.append(UInt8(u.value - 0x30))
            case 0x41...0x46: digits.append(UInt8(u.value - 0x41 + 10))
            case 0x61...0x66: digits.append(UInt8(u.value - 0x61 + 10))
            default: return nil
            }
        }
        switch digits.count {
        case 3, 4:
            let c = digits.map { $0 * 17 }
            self.init(red: c[0], green: c[1], blue: c[2], alpha: digits.count == 4 ? c[3] : 255)
        case 6, 8:
            let c = stride(from: 0, to: digits.count, by: 2).map { digits[$0] * 16 + digits[$0 + 1] }
            self.init(red: c[0], green: c[1], blue: c[2], alpha: digits.count == 8 ? c[3] : 255)
        default:
            return nil
        }
    }

    /// `#rrggbb` when opaque, else `#rrggbbaa` (lower-case hex).
    public var hexString: String {
        var s = "#" + hexByte(red) + hexByte(green) + hexByte(blue)
        if alpha != 255 { s += hexByte(alpha) }
        return s
    }

    /// Alpha as 0…1.
    public var opacity: Double { Double(alpha) / 255 }

    /// The same as `hexString`.
    public var description: String { hexString }

    private func hexByte(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }
}
