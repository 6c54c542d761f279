/// Why KartpackKit could not open, read or use a package, style folder or catalog.
///
/// Every failure on hostile input is one of these: the library never traps on a file's content.
public enum KartpackKitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is missing, unreadable, not a regular file, or not a `file:` URL.
    case cannotOpen(path: String, reason: String)
    /// The file is not a valid package (bad header, sections beyond the file end, corrupt directories, metadata
    /// or tiles, a tile over a safety cap).
    case invalidPackage(path: String, reason: String)
    /// The package uses something this library does not read (brotli/zstd compression, raster tiles).
    case unsupported(path: String, reason: String)
    /// A tile holds MVT bytes that break the specification.
    case invalidTile(path: String, tile: String, reason: String)
    /// The request itself is wrong (an inverted region, a zoom outside 0...31, too many tiles).
    case invalidRequest(String)
    /// A style folder's `style.json` or sprite cannot be used.
    case invalidStyle(path: String, reason: String)
    /// A `catalog.json` breaks its schema.
    case invalidCatalog(path: String, reason: String)
    /// A downloaded file does not match its catalog entry.
    case verificationFailed(path: String, reason: String)

    /// A one-line explanation naming the file and the reason.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .invalidPackage(let path, let reason): "\(path) is not a valid package: \(reason)"
        case .unsupported(let path, let reason): "\(path): unsupported: \(reason)"
        case .invalidTile(let path, let tile, let reason): "\(path): tile \(tile): \(reason)"
        case .invalidRequest(let why): "invalid request: \(why)"
        case .invalidStyle(let path, let reason): "\(path): unusable style: \(reason)"
        case .invalidCatalog(let path, let reason): "\(path) is not a valid catalog: \(reason)"
        case .verificationFailed(let path, let reason): "\(path) failed verification: \(reason)"
        }
    }
}
