/// Checks UTF-8 without making a `String`: the same well-formed byte sequences as `String(validating:as:)`
/// (Unicode 15 table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
enum UTF8Validation {
    /// True when `bytes` is well-formed UTF-8.
    static func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0) }
    }

    /// True when `p` is well-formed UTF-8.
    static func isValid(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = p.count
        var i = 0
        func continues(_ k: Int) -> Bool { p[k] & 0xC0 == 0x80 }
        while i < n {
            let b0 = p[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            switch b0 {
            case 0xC2...0xDF:
                guard i + 1 < n, continues(i + 1) else { return false }
                i += 2
            case 0xE0...0xEF:
                guard i + 2 < n, continues(i + 2) else { return false }
                let b1 = p[i + 1]
                let ok: Bool
                switch b0 {
                case 0xE0: ok = b1 >= 0xA0 && b1 <= 0xBF  // no overlong forms
                case 0xED: ok = b1 >= 0x80 && b1 <= 0x9F  // no surrogates
                default: ok = b1 & 0xC0 == 0x80
                }
                guard ok else { return false }
                i += 3
            case 0xF0...0xF4:
                guard i + 3 < n, continues(i + 2), continues(i + 3) else { return false }
                let b1 = p[i + 1]
                let ok: Bool
                switch b0 {
                case 0xF0: ok = b1 >= 0x90 && b1 <= 0xBF  // no overlong forms
                case 0xF4: ok = b1 >= 0x80 && b1 <= 0x8F  // nothing above U+10FFFF
                default: ok = b1 & 0xC0 == 0x80
                }
                guard ok else { return false }
                i += 4
            default:
                return false  // a continuation byte first, 0xC0/0xC1 (overlong) or 0xF5…0xFF
            }
        }
        return true
    }
}
