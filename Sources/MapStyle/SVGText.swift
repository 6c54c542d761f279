/// Small helpers for writing SVG: XML escaping and compact numbers.
enum SVGText {
    /// `s` escaped for XML text and attribute values; characters XML 1.0 forbids become U+FFFD.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(u)
            default:
                let v = u.value
                if v < 0x20 || v == 0xFFFE || v == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }

    /// A number rounded to 2 decimals, without a trailing `.0` (`12`, `3.5`, `-0.25`).
    static func num(_ d: Double) -> String {
        guard d.isFinite else { return "0" }
        let r = (d * 100).rounded() / 100
        if r == r.rounded(), abs(r) < 1e15 { return String(Int64(r)) }
        return String(r)
    }

    /// `#rrggbb` (alpha is written separately as an opacity).
    static func rgb(_ c: (UInt8, UInt8, UInt8)) -> String {
        func h(_ v: UInt8) -> String {
            let s = String(v, radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + h(c.0) + h(c.1) + h(c.2)
    }
}
