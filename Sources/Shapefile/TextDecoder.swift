import Glibc

/// Decodes DBF bytes (values and field names) to Swift strings in one encoding.
///
/// - `UTF-8`: invalid sequences become U+FFFD and the value is flagged (`invalid_utf8`).
/// - default (no `.cpg`, LDID 0 and no text that says otherwise): valid UTF-8 is taken as it is; otherwise the value
///   is decoded as CP1252 and flagged (`encoding_fallback`).
/// - detected (`EncodingDetector` chose a legacy code page from the text): valid UTF-8 as it is, otherwise the
///   detected code page, not flagged.
/// - single-byte code pages: a 256-entry table built once through glibc iconv (ISO-8859-1 needs none); bytes the
///   code page does not define become U+FFFD and are flagged (`undecodable_bytes`).
/// - multi-byte code pages (CP932, CP936, …): glibc iconv per value, U+FFFD for each bad byte.
final class TextDecoder {
    enum Issue: Equatable {
        case invalidUTF8
        case fallbackToCP1252
        case undecodableBytes
    }

    private enum Mode {
        case utf8
        /// UTF-8 when valid, else the table; the flag says whether such a value is reported as a fallback.
        case utf8Else([Unicode.Scalar?], flagged: Bool)
        case table([Unicode.Scalar?])
        case iconv(iconv_t)
    }

    let name: String
    private let mode: Mode

    /// Creates a decoder; nil when iconv does not know the encoding.
    init?(encoding: String, utf8WithFallback: Bool = false) {
        name = encoding
        if utf8WithFallback {
            guard let table = Self.singleByteTable("CP1252") else { return nil }
            mode = .utf8Else(table, flagged: true)
            return
        }
        switch encoding {
        case "UTF-8":
            mode = .utf8
        case "ISO-8859-1":
            mode = .table((0..<256).map { Unicode.Scalar(UInt8($0)) })
        default:
            guard Self.isASCIICompatible(encoding) else { return nil }
            if let table = Self.singleByteTable(encoding) {
                mode = .table(table)
            } else {
                let cd = iconv_open("UTF-8", encoding)
                guard Int(bitPattern: cd) != -1, let cd else { return nil }
                mode = .iconv(cd)
            }
        }
    }

    /// A decoder reading valid UTF-8 as UTF-8 and anything else in the single-byte code page `legacy`, without
    /// flagging it (the code page was detected from the text); nil when iconv does not know it.
    init?(utf8Else legacy: String) {
        guard let table = Self.singleByteTable(legacy) else { return nil }
        name = legacy
        mode = .utf8Else(table, flagged: false)
    }

    deinit {
        if case .iconv(let cd) = mode { iconv_close(cd) }
    }

    /// Decodes `bytes`; the issue says what had to be replaced or guessed.
    func decode(_ bytes: [UInt8]) -> (String, Issue?) {
        if bytes.allSatisfy({ $0 < 0x80 }) { return (String(decoding: bytes, as: UTF8.self), nil) }
        switch mode {
        case .utf8:
            if let s = String(validating: bytes, as: UTF8.self) { return (s, nil) }
            return (String(decoding: bytes, as: UTF8.self), .invalidUTF8)
        case .utf8Else(let table, let flagged):
            if let s = String(validating: bytes, as: UTF8.self) { return (s, nil) }
            let (s, bad) = Self.decode(bytes, table)
            return (s, flagged ? .fallbackToCP1252 : bad ? .undecodableBytes : nil)
        case .table(let table):
            let (s, bad) = Self.decode(bytes, table)
            return (s, bad ? .undecodableBytes : nil)
        case .iconv(let cd):
            return Self.decode(bytes, cd)
        }
    }

    private static func decode(_ bytes: [UInt8], _ table: [Unicode.Scalar?]) -> (String, Bool) {
        var s = String.UnicodeScalarView()
        var bad = false
        for b in bytes {
            if let u = table[Int(b)] {
                s.append(u)
            } else {
                s.append("\u{FFFD}")
                bad = true
            }
        }
        return (String(s), bad)
    }

    private static func decode(_ bytes: [UInt8], _ cd: iconv_t) -> (String, Issue?) {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        var issue: Issue?
        var input = bytes.map { CChar(bitPattern: $0) }
        var buffer = [CChar](repeating: 0, count: bytes.count * 4 + 16)
        input.withUnsafeMutableBufferPointer { inBuf in
            buffer.withUnsafeMutableBufferPointer { outBuf in
                guard let inBase = inBuf.baseAddress, let outBase = outBuf.baseAddress else { return }
                _ = iconv(cd, nil, nil, nil, nil)  // reset shift state
                var inPtr: UnsafeMutablePointer<CChar>? = inBase
                var inLeft = inBuf.count
                while inLeft > 0 {
                    var outPtr: UnsafeMutablePointer<CChar>? = outBase
                    var outLeft = outBuf.count
                    let r = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                    let produced = outBuf.count - outLeft
                    out.append(contentsOf: UnsafeRawBufferPointer(start: outBase, count: produced))
                    if r == -1 {
                        let e = errno
                        if e == E2BIG { continue }
                        // EILSEQ or EINVAL (truncated sequence): replace one byte and go on.
                        out.append(contentsOf: [0xEF, 0xBF, 0xBD])
                        issue = .undecodableBytes
                        inPtr = inPtr.map { $0 + 1 }
                        inLeft -= 1
                        _ = iconv(cd, nil, nil, nil, nil)
                    }
                }
            }
        }
        return (String(decoding: out, as: UTF8.self), issue)
    }

    /// True when iconv knows the encoding and it maps printable ASCII bytes to themselves (DBF code pages do;
    /// UTF-16 or EBCDIC do not and are refused).
    private static func isASCIICompatible(_ encoding: String) -> Bool {
        let cd = iconv_open("UTF-8", encoding)
        guard Int(bitPattern: cd) != -1, let cd else { return false }
        defer { iconv_close(cd) }
        let ascii = Array(UInt8(0x20)..<UInt8(0x7F))
        let (s, issue) = decode(ascii, cd)
        return issue == nil && Array(s.utf8) == ascii
    }

    /// A byte → scalar table for a single-byte encoding, or nil when iconv does not know it or it is multi-byte.
    private static func singleByteTable(_ encoding: String) -> [Unicode.Scalar?]? {
        let cd = iconv_open("UTF-8", encoding)
        guard Int(bitPattern: cd) != -1, let cd else { return nil }
        defer { iconv_close(cd) }
        var table: [Unicode.Scalar?] = (0..<128).map { Unicode.Scalar(UInt8($0)) }
        for b in 128..<256 {
            _ = iconv(cd, nil, nil, nil, nil)
            var input: [CChar] = [CChar(bitPattern: UInt8(b))]
            var output = [CChar](repeating: 0, count: 8)
            var result = 0
            var err: Int32 = 0
            var produced = 0
            input.withUnsafeMutableBufferPointer { inBuf in
                output.withUnsafeMutableBufferPointer { outBuf in
                    var inPtr = inBuf.baseAddress
                    var inLeft = 1
                    var outPtr = outBuf.baseAddress
                    var outLeft = 8
                    result = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                    err = errno
                    produced = 8 - outLeft
                }
            }
            if result == -1 {
                if err == EINVAL { return nil }  // an incomplete sequence: a multi-byte encoding
                table.append(nil)
                continue
            }
            let scalars = Array(
                String(decoding: output.prefix(produced).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    .unicodeScalars)
            table.append(scalars.count == 1 ? scalars[0] : nil)
        }
        // ASCII must map to itself, or byte-wise fast paths would be wrong (e.g. EBCDIC).
        return table
    }
}
