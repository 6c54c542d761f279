internal import CZlib

/// Gzip, zlib and raw deflate compression and decompression of byte arrays, and CRC-32, wrapping zlib's `deflate`,
/// `inflate` and `crc32`. `Inflater` streams large inputs with a hard output cap.
///
/// Output is deterministic for a given zlib version and level: no file name and an mtime of 0 are written.
public enum Gzip {
    /// zlib's default compression level (`Z_DEFAULT_COMPRESSION`, i.e. level 6).
    public static let defaultLevel: Int32 = -1

    /// The largest chunk handed to zlib at once (its counters are 32-bit).
    static let maxChunk = Int(UInt32.max)

    /// Compresses `bytes` into a gzip member (`1f 8b 08 …`). Wraps `deflateInit2_` and `deflate`.
    ///
    /// - Parameter level: -1 (zlib's default) or 0...9.
    public static func compress(_ bytes: [UInt8], level: Int32 = defaultLevel) throws(GzipError) -> [UInt8] {
        try deflateAll(bytes, level: level, windowBits: MAX_WBITS + 16)
    }

    /// Compresses `bytes` into a zlib stream (RFC 1950: 2-byte header, deflate data, Adler-32 trailer), as PNG
    /// `IDAT` chunks need. Wraps `deflateInit2_` with `windowBits` 15 and `deflate`.
    ///
    /// - Parameter level: -1 (zlib's default) or 0...9.
    public static func zlibCompress(_ bytes: [UInt8], level: Int32 = defaultLevel) throws(GzipError) -> [UInt8] {
        try deflateAll(bytes, level: level, windowBits: MAX_WBITS)
    }

    /// Compresses `bytes` into raw deflate data (RFC 1951, no header or trailer), as stored in zip entries
    /// (method 8). Wraps `deflateInit2_` with `windowBits` -15 and `deflate`.
    ///
    /// - Parameter level: -1 (zlib's default) or 0...9.
    public static func deflateRaw(_ bytes: [UInt8], level: Int32 = defaultLevel) throws(GzipError) -> [UInt8] {
        try deflateAll(bytes, level: level, windowBits: -MAX_WBITS)
    }

    /// Deflates all of `bytes` in one go with the framing `windowBits` selects.
    private static func deflateAll(_ bytes: [UInt8], level: Int32, windowBits: Int32) throws(GzipError) -> [UInt8] {
        guard level == -1 || (0...9).contains(level) else { throw .invalidLevel(level) }
        let stream = try ZStream(deflateLevel: level, windowBits: windowBits)
        let s = stream.pointer
        let bound = Int(deflateBound(s, uLong(min(bytes.count, maxChunk))))
        var out = [UInt8](repeating: 0, count: max(64, bound + 32))
        var produced = 0
        var consumed = 0
        let result: Result<Void, GzipError> = bytes.withUnsafeBufferPointer { input in
            while true {
                if produced == out.count { out.append(contentsOf: repeatElement(0, count: out.count)) }
                let chunk = min(input.count - consumed, maxChunk)
                let last = consumed + chunk == input.count
                s.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0 + consumed) }
                s.pointee.avail_in = UInt32(chunk)
                let space = min(out.count - produced, maxChunk)
                let rc = out.withUnsafeMutableBufferPointer { o -> Int32 in
                    s.pointee.next_out = o.baseAddress.map { $0 + produced }
                    s.pointee.avail_out = UInt32(space)
                    return deflate(s, last ? Z_FINISH : Z_NO_FLUSH)
                }
                consumed += chunk - Int(s.pointee.avail_in)
                produced += space - Int(s.pointee.avail_out)
                switch rc {
                case Z_STREAM_END: return .success(())
                case Z_OK, Z_BUF_ERROR: continue
                default: return .failure(.compressionFailed(code: rc))
                }
            }
        }
        try result.get()
        out.removeSubrange(produced...)
        return out
    }

    /// Decompresses raw deflate data (RFC 1951, as in zip entries with method 8). Wraps `inflateInit2_` with
    /// `windowBits` -15 and `inflate`, through `Inflater`.
    ///
    /// Never traps on garbage: corrupt or truncated input, bytes after the end of the deflate data, or output over
    /// the cap throw. For large data, use `Inflater` directly to stream.
    /// - Parameter maxOutput: the most bytes the result may hold; more throws `.outputTooLarge`.
    public static func inflateRaw(_ bytes: [UInt8], maxOutput: Int) throws(GzipError) -> [UInt8] {
        guard !bytes.isEmpty else { throw .truncated }
        var inflater = try Inflater(format: .raw, maxOutput: maxOutput)
        inflater.feed(bytes)
        var out: [UInt8] = []
        let step = maxOutput >= 1 << 20 ? 1 << 20 : max(0, maxOutput) + 1
        while !inflater.isFinished {
            let chunk = try inflater.next(maxBytes: step)
            if chunk.isEmpty && inflater.needsInput { throw .truncated }
            out.append(contentsOf: chunk)
        }
        if inflater.unconsumedInputCount > 0 { throw .trailingData(count: inflater.unconsumedInputCount) }
        return out
    }

    /// zlib's CRC-32 (the one zip, gzip and PNG use) of `bytes`, continuing from `crc` (0 to start).
    public static func crc32(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { crc32($0, continuing: crc) }
    }

    /// zlib's CRC-32 of the bytes in `buffer`, continuing from `crc` (0 to start). Wraps `crc32`.
    public static func crc32(_ buffer: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return crc }
        var value = uLong(crc)
        var done = 0
        while done < buffer.count {
            let n = min(buffer.count - done, Int(UInt32.max))
            value = CZlib.crc32(value, base.assumingMemoryBound(to: Bytef.self) + done, uInt(n))
            done += n
        }
        return UInt32(truncatingIfNeeded: value)
    }

    /// Decompresses a gzip or zlib stream (detected from its header). Wraps `inflateInit2_` and `inflate`.
    ///
    /// Concatenated gzip members are joined, as `gunzip` does. Never traps on garbage: corrupt, truncated or
    /// oversized input throws.
    /// - Parameter maxOutput: the most bytes the result may hold; more throws `.outputTooLarge`.
    public static func decompress(_ bytes: [UInt8], maxOutput: Int) throws(GzipError) -> [UInt8] {
        guard !bytes.isEmpty else { throw .truncated }
        let limit = max(0, maxOutput)
        let stream = try ZStream(inflatingGzipOrZlib: ())
        let s = stream.pointer
        var out = [UInt8](repeating: 0, count: min(limit + 1, max(256, bytes.count * 4)))
        var produced = 0
        var consumed = 0
        let result: Result<Void, GzipError> = bytes.withUnsafeBufferPointer { input in
            while true {
                if produced == out.count {
                    // The buffer may grow to limit + 1 so that "more than limit" is detectable.
                    if out.count > limit { return .failure(.outputTooLarge(limit: limit)) }
                    let grown = min(limit + 1, out.count * 2)
                    out.append(contentsOf: repeatElement(0, count: grown - out.count))
                }
                let chunk = min(input.count - consumed, maxChunk)
                s.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0 + consumed) }
                s.pointee.avail_in = UInt32(chunk)
                let space = min(out.count - produced, maxChunk)
                let rc = out.withUnsafeMutableBufferPointer { o -> Int32 in
                    s.pointee.next_out = o.baseAddress.map { $0 + produced }
                    s.pointee.avail_out = UInt32(space)
                    return inflate(s, Z_NO_FLUSH)
                }
                let usedIn = chunk - Int(s.pointee.avail_in)
                let madeOut = space - Int(s.pointee.avail_out)
                consumed += usedIn
                produced += madeOut
                if produced > limit { return .failure(.outputTooLarge(limit: limit)) }
                switch rc {
                case Z_STREAM_END:
                    let rest = input.count - consumed
                    if rest == 0 { return .success(()) }
                    // Another gzip member may follow (`cat a.gz b.gz`); anything else is trailing garbage.
                    if rest >= 2 && input[consumed] == 0x1f && input[consumed + 1] == 0x8b {
                        guard inflateReset(s) == Z_OK else { return .failure(.corrupt(reason: "inflateReset failed")) }
                        continue
                    }
                    return .failure(.trailingData(count: rest))
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    // No progress was possible: either the input ran out or the output buffer was full.
                    if consumed == input.count && madeOut == 0 && produced < out.count { return .failure(.truncated) }
                    if usedIn == 0 && madeOut == 0 && produced < out.count { return .failure(.truncated) }
                    continue
                case Z_NEED_DICT:
                    return .failure(.corrupt(reason: "stream needs a preset dictionary"))
                case Z_DATA_ERROR:
                    return .failure(.corrupt(reason: stream.message ?? "invalid data"))
                case Z_MEM_ERROR:
                    return .failure(.corrupt(reason: "zlib ran out of memory"))
                default:
                    return .failure(.corrupt(reason: stream.message ?? "zlib error \(rc)"))
                }
            }
        }
        try result.get()
        out.removeSubrange(produced...)
        return out
    }
}
