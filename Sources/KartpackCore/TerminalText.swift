/// Untrusted text (package metadata, layer and field names, region display names) made safe to print on a
/// terminal: control characters cannot move the cursor, recolour, retitle the window or hide text.
package enum TerminalText {
    /// `s` with every C0 control (ESC, BEL, CR, backspace …), DEL, C1 control (U+0080–U+009F) and bidirectional
    /// override or isolate (U+202A–U+202E, U+2066–U+2069) written as a visible escape: `\e` for ESC, `\n`, `\r`,
    /// `\t`, every other one as `\u{XX}`. Newlines are kept when `keepNewlines` (for whole rendered reports).
    package static func escaped(_ s: String, keepNewlines: Bool = false) -> String {
        guard s.unicodeScalars.contains(where: { needsEscape($0, keepNewlines: keepNewlines) }) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for u in s.unicodeScalars {
            guard needsEscape(u, keepNewlines: keepNewlines) else {
                out.unicodeScalars.append(u)
                continue
            }
            switch u {
            case "\u{1B}": out += "\\e"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    /// True for the scalars `escaped` rewrites.
    static func needsEscape(_ u: Unicode.Scalar, keepNewlines: Bool) -> Bool {
        switch u.value {
        case 0x0A: !keepNewlines
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
