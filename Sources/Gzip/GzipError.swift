/// Why a gzip or zlib operation failed.
public enum GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `deflateInit2_` or `inflateInit2_` refused to start (zlib result code).
    case initializationFailed(code: Int32)
    /// `deflate` failed (zlib result code).
    case compressionFailed(code: Int32)
    /// The input is not a valid gzip or zlib stream; `reason` is zlib's message when it gave one.
    case corrupt(reason: String)
    /// The input ends before the compressed stream does.
    case truncated
    /// Bytes follow the end of the compressed stream that are not another gzip member.
    case trailingData(count: Int)
    /// Decompressing would produce more than `limit` bytes.
    case outputTooLarge(limit: Int)
    /// The compression level is outside 0...9 (or -1 for zlib's default).
    case invalidLevel(Int32)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .initializationFailed(let code): "zlib could not start (code \(code))"
        case .compressionFailed(let code): "gzip compression failed (zlib code \(code))"
        case .corrupt(let reason): "corrupt compressed data: \(reason)"
        case .truncated: "compressed data is truncated"
        case .trailingData(let count): "\(count) unexpected bytes after the end of the compressed data"
        case .outputTooLarge(let limit): "decompressed data exceeds the limit of \(limit) bytes"
        case .invalidLevel(let level): "invalid compression level \(level) (expected -1 or 0...9)"
        }
    }
}
