/// A single-threaded sink for finished tiles that publishes one archive atomically.
///
/// The writer declares what the tiling must follow: `tileOrder` (tiles must arrive in it; writers check it and
/// throw on a violation) and `tileCompression` (tiles arrive compressed with it; the encode phase compresses, in
/// parallel, so size limits see stored bytes). `finish` writes directories or
/// indexes and metadata, verifies, and renames into place; `abort` removes every temp file and leaves any
/// previous file at the target untouched.
public protocol TileArchiveWriting: AnyObject {
    /// The order `write` requires.
    var tileOrder: TileOrder { get }
    /// How tiles are stored; `write` takes them in this form.
    var tileCompression: TileCompression { get }
    /// Whether identical tile blobs are stored once.
    var deduplicates: Bool { get }
    /// Adds one tile; `data` is the MVT compressed with `tileCompression`.
    func write(z: Int, x: Int, y: Int, data: [UInt8]) throws
    /// Writes metadata, verifies and publishes the archive.
    func finish(metadata: ArchiveMetadata) throws -> ArchiveSummary
    /// Discards everything written; safe to call more than once and after a failed `finish`.
    func abort()
}
