/// A single-threaded sink for finished (gzip-compressed MVT) tiles that publishes one archive atomically.
///
/// Tiles must arrive in `tileOrder`; writers check it and throw on a violation. `finish` writes directories or
/// indexes and metadata, verifies, and renames into place; `abort` removes every temp file and leaves any
/// previous file at the target untouched.
public protocol TileArchiveWriting: AnyObject {
    /// The order `write` requires.
    var tileOrder: TileOrder { get }
    /// Whether identical tile blobs are stored once.
    var deduplicates: Bool { get }
    /// Adds one tile; `data` is the gzip-compressed MVT.
    func write(z: Int, x: Int, y: Int, data: [UInt8]) throws
    /// Writes metadata, verifies and publishes the archive.
    func finish(metadata: ArchiveMetadata) throws -> ArchiveSummary
    /// Discards everything written; safe to call more than once and after a failed `finish`.
    func abort()
}
