/// Maps `.cpg` text, DBF language-driver ids and `--encoding` values to canonical encoding names.
enum CodePage {
    /// The canonical name for `.cpg` contents or an `--encoding` value, following GDAL's mapping: `UTF-8`/`UTF8`;
    /// a number in 437…950 or 1250…1258 → `CP<n>`; `8859-x`/`8859x`/`ISO-8859-x`/`ISO8859x` → `ISO-8859-x`;
    /// `ANSI <n>`/`WINDOWS-<n>` → `CP<n>`; `LATIN1` → `ISO-8859-1`. Anything else is returned upper-cased for
    /// iconv to judge; nil for empty or garbled text (control characters, over 64 characters).
    static func canonicalName(_ raw: String) -> String? {
        let text = raw.trimmingWhitespace.uppercased()
        guard !text.isEmpty, text.count <= 64,
            text.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value < 0x7F || $0 == " " })
        else { return nil }
        if text == "UTF-8" || text == "UTF8" || text == "65001" { return "UTF-8" }
        if text == "LATIN1" || text == "LATIN-1" { return "ISO-8859-1" }
        if let n = Int(text), (437...950).contains(n) || (1250...1258).contains(n) { return "CP\(n)" }
        for prefix in ["ANSI ", "ANSI_", "WINDOWS-", "WINDOWS_", "CP", "CP-", "IBM"] where text.hasPrefix(prefix) {
            if let n = Int(text.dropFirst(prefix.count)), (437...950).contains(n) || (1250...1258).contains(n) {
                return "CP\(n)"
            }
        }
        for prefix in ["ISO-8859-", "ISO8859-", "ISO_8859-", "ISO-8859", "ISO8859", "8859-", "8859"]
        where text.hasPrefix(prefix) {
            if let n = Int(text.dropFirst(prefix.count)), (1...16).contains(n) { return "ISO-8859-\(n)" }
        }
        return text
    }

    /// The encoding a DBF language-driver byte stands for, or nil when the id is unknown (0 is handled by the
    /// caller).
    static func forLanguageDriver(_ ldid: UInt8) -> String? {
        switch ldid {
        case 87: "ISO-8859-1"
        case 3, 88, 89: "CP1252"
        case 1, 11, 13, 15, 17, 21, 24, 25, 27: "CP437"
        case 2, 10, 14, 16, 18, 20, 22, 26, 29, 37, 55: "CP850"
        case 38, 101: "CP866"
        case 200: "CP1250"
        case 201: "CP1251"
        case 202: "CP1254"
        case 203: "CP1253"
        case 204: "CP1257"
        case 19, 123: "CP932"
        case 77, 122: "CP936"
        case 78, 121: "CP949"
        case 79, 120: "CP950"
        case 80, 124: "CP874"
        case 4: "MACINTOSH"
        default: nil
        }
    }
}

extension CodePage {
    /// The DOS code page a language-driver byte declares when neither glibc iconv nor ICU has a table for it (so it
    /// cannot be read, and no other reading may be guessed in its place): 0x68 Kamenický, 0x69 Mazovia.
    static func withoutTable(languageDriver ldid: UInt8) -> String? {
        switch ldid {
        case 0x68: "Kamenický (DOS code page 895)"
        case 0x69: "Mazovia (DOS code page 620)"
        default: nil
        }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs, CR, LF and NUL.
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        func ws(_ s: Unicode.Scalar) -> Bool { s == " " || s == "\t" || s == "\r" || s == "\n" || s == "\0" }
        guard let first = scalars.firstIndex(where: { !ws($0) }), let last = scalars.lastIndex(where: { !ws($0) })
        else { return "" }
        return String(scalars[first...last])
    }
}
