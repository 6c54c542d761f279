import Foundation

/// A colour of a client look: 8-bit red, green and blue and an alpha from 0 (transparent) to 1.
public struct LookColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8
    /// Alpha, 0...1.
    public var alpha: Double

    /// Creates a colour; `alpha` is clamped to 0...1.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha.isNaN ? 1 : min(max(alpha, 0), 1)
    }

    /// Black, MapLibre's default for most colour properties.
    public static let black = LookColor(red: 0, green: 0, blue: 0)

    /// `#rrggbb` (alpha left out).
    public var hexString: String {
        "#"
            + [red, green, blue].map { b in
                let s = String(b, radix: 16)
                return s.count == 1 ? "0" + s : s
            }.joined()
    }

    /// `#rrggbb` when opaque, else `rgba(r, g, b, a)`.
    public var description: String {
        alpha == 1 ? hexString : "rgba(\(red), \(green), \(blue), \(alpha))"
    }

    /// Parses the colour forms a Kartpack style writes and common CSS ones: `#rgb`, `#rgba`, `#rrggbb`,
    /// `#rrggbbaa`, `rgb(r, g, b)`, `rgba(r, g, b, a)` and `transparent`. Nil for anything else (named CSS
    /// colours other than `transparent`, `hsl()`), which `ClientStyle` reports as an unsupported value.
    public init?(css text: String) {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        if s == "transparent" {
            self.init(red: 0, green: 0, blue: 0, alpha: 0)
            return
        }
        if s.hasPrefix("#") {
            let hex = Array(s.dropFirst())
            guard hex.allSatisfy(\.isHexDigit) else { return nil }
            func byte(_ i: Int, _ n: Int) -> UInt8 {
                let v = UInt8(String(hex[i..<(i + n)]), radix: 16) ?? 0
                return n == 1 ? v * 17 : v
            }
            switch hex.count {
            case 3, 4:
                self.init(
                    red: byte(0, 1), green: byte(1, 1), blue: byte(2, 1),
                    alpha: hex.count == 4 ? Double(byte(3, 1)) / 255 : 1)
            case 6, 8:
                self.init(
                    red: byte(0, 2), green: byte(2, 2), blue: byte(4, 2),
                    alpha: hex.count == 8 ? Double(byte(6, 2)) / 255 : 1)
            default: return nil
            }
            return
        }
        for prefix in ["rgba(", "rgb("] where s.hasPrefix(prefix) && s.hasSuffix(")") {
            let inner = s.dropFirst(prefix.count).dropLast()
            let parts = inner.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 3 || parts.count == 4 else { return nil }
            var channels: [UInt8] = []
            for p in parts.prefix(3) {
                guard let v = Double(p), v.isFinite else { return nil }
                channels.append(UInt8(min(max(v.rounded(), 0), 255)))
            }
            var alpha = 1.0
            if parts.count == 4 {
                guard let a = Double(parts[3]), a.isFinite else { return nil }
                alpha = a
            }
            self.init(red: channels[0], green: channels[1], blue: channels[2], alpha: alpha)
            return
        }
        return nil
    }
}
