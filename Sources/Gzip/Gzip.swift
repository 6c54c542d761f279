internal import CZlib

/// Gzip compression and gzip/zlib decompression of byte arrays, wrapping zlib's `deflate` and `inflate`.
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
        guard level == -1 || (0...9).contains(level) else { throw .invalidLevel(level) }
        let stream = try ZStream(gzipLevel: level)
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
