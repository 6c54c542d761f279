internal import CZlib

/// A streaming decompressor with a hard output cap: feed compressed chunks, pull output chunks of bounded size.
/// Wraps `inflateInit2_` and `inflate`; the single owner of its zlib stream (`inflateEnd` in `deinit`).
///
/// Memory stays bounded whatever the input claims: each `next(maxBytes:)` returns at most `maxBytes` bytes, and
/// more than `maxOutput` bytes in all throws `.outputTooLarge`. Typical loop:
///
/// ```swift
/// var inflater = try Inflater(format: .raw, maxOutput: cap)
/// while !inflater.isFinished {
///     if inflater.needsInput {
///         guard let chunk = readMore() else { throw GzipError.truncated }
///         inflater.feed(chunk)
///     }
///     write(try inflater.next(maxBytes: 1 << 16))
/// }
/// // inflater.unconsumedInputCount > 0 means bytes followed the end of the stream.
/// ```
///
/// Only one stream is read: after its end, further input is left unconsumed (concatenated gzip members are not
/// joined here; `Gzip.decompress` does that).
public struct Inflater: ~Copyable {
    /// The framing of the compressed data.
    public enum Format: Sendable, Hashable {
        /// Raw deflate (RFC 1951) as in zip entries (`windowBits` -15).
        case raw
        /// A zlib stream (RFC 1950, `windowBits` 15).
        case zlib
        /// A gzip member or a zlib stream, detected from the header (`windowBits` 47).
        case gzipOrZlib
    }

    private let stream: ZStream
    /// The most bytes this inflater may produce in all.
    public let maxOutput: Int
    /// Compressed bytes consumed so far.
    public private(set) var totalIn = 0
    /// Decompressed bytes produced so far.
    public private(set) var totalOut = 0
    /// True once the end of the compressed stream was reached.
    public private(set) var isFinished = false
    private var input: [UInt8] = []
    private var inputOffset = 0

    /// Starts an inflater.
    /// - Parameters:
    ///   - format: the framing (raw deflate by default).
    ///   - maxOutput: the most bytes it may produce; more throws `.outputTooLarge(limit: maxOutput)`.
    public init(format: Format = .raw, maxOutput: Int) throws(GzipError) {
        let bits: Int32 =
            switch format {
            case .raw: -MAX_WBITS
            case .zlib: MAX_WBITS
            case .gzipOrZlib: MAX_WBITS + 32
            }
        stream = try ZStream(inflateWindowBits: bits)
        self.maxOutput = max(0, maxOutput)
    }

    /// True when every fed byte was consumed and the stream has not ended: call `feed(_:)` next.
    public var needsInput: Bool { !isFinished && inputOffset == input.count }

    /// Fed bytes not consumed yet; after the end of the stream, these followed it.
    public var unconsumedInputCount: Int { input.count - inputOffset }

    /// Adds compressed bytes after those fed before.
    public mutating func feed(_ chunk: [UInt8]) {
        if inputOffset == input.count {
            input = chunk
            inputOffset = 0
        } else {
            input.removeSubrange(..<inputOffset)
            input.append(contentsOf: chunk)
            inputOffset = 0
        }
    }

    /// Inflates up to `maxBytes` bytes. Returns an empty array when more input is needed (`needsInput`) or the
    /// stream has ended (`isFinished`).
    ///
    /// Throws `.outputTooLarge` as soon as the total passes `maxOutput`, `.corrupt` on invalid data (zlib's
    /// message), never traps.
    public mutating func next(maxBytes: Int = 1 << 16) throws(GzipError) -> [UInt8] {
        if isFinished || inputOffset == input.count { return [] }
        // Room for one byte past the cap, so that "more than maxOutput" is detectable.
        let remaining = maxOutput - totalOut
        let wanted = max(1, min(maxBytes, Gzip.maxChunk))
        let space = remaining >= wanted ? wanted : remaining + 1
        var out = [UInt8](repeating: 0, count: space)
        let s = stream.pointer
        let offset = inputOffset
        let available = min(input.count - offset, Gzip.maxChunk)
        let rc: Int32 = input.withUnsafeBufferPointer { inBuf in
            out.withUnsafeMutableBufferPointer { o -> Int32 in
                s.pointee.next_in = inBuf.baseAddress.map { UnsafeMutablePointer(mutating: $0 + offset) }
                s.pointee.avail_in = UInt32(available)
                s.pointee.next_out = o.baseAddress
                s.pointee.avail_out = UInt32(space)
                return inflate(s, Z_NO_FLUSH)
            }
        }
        let usedIn = available - Int(s.pointee.avail_in)
        let madeOut = space - Int(s.pointee.avail_out)
        // Do not keep dangling pointers into the arrays.
        s.pointee.next_in = nil
        s.pointee.next_out = nil
        inputOffset += usedIn
        totalIn += usedIn
        totalOut += madeOut
        if inputOffset == input.count {
            input = []
            inputOffset = 0
        }
        if totalOut > maxOutput { throw .outputTooLarge(limit: maxOutput) }
        switch rc {
        case Z_STREAM_END:
            isFinished = true
        case Z_OK:
            break
        case Z_BUF_ERROR:
            // No progress possible: with input left and room for output, the data is broken.
            if usedIn == 0 && madeOut == 0 && inputOffset < input.count {
                throw .corrupt(reason: stream.message ?? "inflate made no progress")
            }
        case Z_NEED_DICT:
            throw .corrupt(reason: "stream needs a preset dictionary")
        case Z_DATA_ERROR:
            throw .corrupt(reason: stream.message ?? "invalid data")
        case Z_MEM_ERROR:
            throw .corrupt(reason: "zlib ran out of memory")
        default:
            throw .corrupt(reason: stream.message ?? "zlib error \(rc)")
        }
        if madeOut < out.count { out.removeSubrange(madeOut...) }
        return out
    }
}
