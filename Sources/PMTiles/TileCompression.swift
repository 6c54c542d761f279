import Gzip

/// How an archive stores its tiles. The archive format owns it: writers declare it (the encode phase compresses
/// with it, in parallel, so size limits see stored bytes) and readers undo it, so no caller sniffs gzip bytes.
public enum TileCompression: Sendable, Hashable {
    /// Tiles stored as they are.
    case none
    /// Tiles stored gzip-compressed (what PMTiles and MBTiles clients expect for MVT).
    case gzip
    /// A compression Kartpack does not read or write (PMTiles brotli or zstd), by its PMTiles code.
    case unsupported(code: UInt8)

    /// The stored form of an encoded tile.
    public func compress(_ tile: [UInt8]) throws(TileArchiveError) -> [UInt8] {
        switch self {
        case .none: return tile
        case .unsupported(let code): throw .unsupported(path: "", reason: "tile compression \(code)")
        case .gzip:
            do throws(GzipError) {
                return try Gzip.compress(tile)
            } catch {
                throw .gzip(error, context: "tile")
            }
        }
    }

    /// The tile bytes of a stored tile, at most `maxBytes` long. `.gzip` also passes bytes through that carry no
    /// gzip header (older MBTiles files store plain MVT).
    public func decompress(_ stored: [UInt8], maxBytes: Int, path: String) throws(TileArchiveError) -> [UInt8] {
        if case .unsupported(let code) = self {
            throw .unsupported(path: path, reason: "tile compression \(code) (only none and gzip are read)")
        }
        let isGzip = stored.count >= 2 && stored[0] == 0x1F && stored[1] == 0x8B
        guard self == .gzip, isGzip else {
            guard stored.count <= maxBytes else {
                throw .invalidArchive(path: path, reason: "a tile of \(stored.count) bytes exceeds the cap")
            }
            return stored
        }
        do throws(GzipError) {
            return try Gzip.decompress(stored, maxOutput: maxBytes)
        } catch {
            throw .invalidArchive(path: path, reason: "tile: \(error.description)")
        }
    }
}
