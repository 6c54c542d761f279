/// Decoding and checking of zip entry names (Zip Slip, CWE-22).
package enum ZipEntryName {
    /// IBM code page 437, bytes 0x80–0xFF: the zip default for names without the UTF-8 flag.
    private static let cp437High = Array(
        "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴"
            + "┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{A0}"
    )

    /// Decodes a stored name: UTF-8 when flagged or when the bytes are valid UTF-8 (many writers omit the flag),
    /// CP437 otherwise (never fails).
    package static func decode(_ bytes: [UInt8], utf8Flag: Bool) -> String {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        var s = ""
        for b in bytes {
            if b < 0x80 { s.unicodeScalars.append(Unicode.Scalar(b)) } else { s.append(cp437High[Int(b) - 0x80]) }
        }
        return s
    }

    /// Why a name is unsafe, for `ImportError.unsafeEntry`.
    package struct Unsafe: Error {
        package var reason: String
    }

    /// The longest file name component written (Linux `NAME_MAX`).
    static let maxComponentBytes = 255
    /// The deepest folder nesting accepted.
    package static let maxDepth = 64

    /// The path components an entry name extracts to, relative to the extraction root.
    ///
    /// Backslashes are separators (Windows writers use them); empty and `.` components are dropped. A NUL byte, an
    /// absolute path (`/x`, `\x`, `\\server\share`), a drive letter (`C:`), or a `..` component anywhere is
    /// refused, as are over-long components and absurd nesting. An empty result means the name names the root
    /// itself (`./`).
    package static func components(of name: String, rawName: [UInt8]) throws(Unsafe) -> [String] {
        if rawName.contains(0) { throw Unsafe(reason: "its name contains a NUL byte") }
        let unified = name.replacing("\\", with: "/")
        if unified.hasPrefix("/") { throw Unsafe(reason: "it has an absolute path") }
        let parts = unified.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        if let first = parts.first {
            let scalars = Array(first.unicodeScalars)
            if scalars.count >= 2, scalars[1] == ":", scalars[0].isASCII, scalars[0].properties.isAlphabetic {
                throw Unsafe(reason: "it starts with a drive letter")
            }
        }
        var out: [String] = []
        for part in parts where part != "." {
            if part == ".." { throw Unsafe(reason: "its path contains '..' (path traversal)") }
            if part.utf8.count > maxComponentBytes {
                throw Unsafe(reason: "a name component is longer than \(maxComponentBytes) bytes")
            }
            out.append(part)
        }
        if out.count > maxDepth { throw Unsafe(reason: "it is nested more than \(maxDepth) folders deep") }
        return out
    }

    /// `name` with control characters and `"` escaped, for messages.
    static func printable(_ name: String) -> String {
        var s = ""
        for u in name.unicodeScalars {
            switch u.value {
            case 0x22: s += "\\\""
            case 0..<0x20, 0x7F, 0x80..<0xA0: s += "\\u{\(String(u.value, radix: 16))}"
            default: s.unicodeScalars.append(u)
            }
        }
        return s
    }
}
