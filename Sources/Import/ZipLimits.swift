/// Caps for extracting an untrusted zip archive (hostile-inputs.md §5 #42). Each is enforced on the bytes really
/// produced while streaming, never only on what the headers declare.
package struct ZipLimits: Sendable, Hashable {
    /// The most bytes all entries may inflate to together (default 2 GiB).
    package var maxTotalBytes: Int
    /// The most bytes one entry may inflate to (default 2 GiB, so in practice the total cap).
    package var maxEntryBytes: Int
    /// The most central directory entries, folders included (default 10 000).
    package var maxEntries: Int
    /// The largest compression ratio (inflated ÷ compressed bytes) allowed per entry and for the whole archive
    /// (default 100).
    package var maxRatio: Int
    /// The ratio is only checked once an entry (or the archive) has produced more than this many bytes (default
    /// 1 MiB): small, highly repetitive files such as a `.dbf` padded with blanks compress far better than 100:1
    /// and are harmless.
    package var ratioGraceBytes: Int
    /// The largest central directory read into memory (default 64 MiB; 10 000 ordinary entries need about 1 MiB).
    package var maxCentralDirectoryBytes: Int

    /// Creates limits; the defaults follow hostile-inputs.md (2 GiB total, 10 000 entries, ratio 100).
    package init(
        maxTotalBytes: Int = 2 << 30, maxEntryBytes: Int = 2 << 30, maxEntries: Int = 10_000, maxRatio: Int = 100,
        ratioGraceBytes: Int = 1 << 20, maxCentralDirectoryBytes: Int = 64 << 20
    ) {
        self.maxTotalBytes = maxTotalBytes
        self.maxEntryBytes = maxEntryBytes
        self.maxEntries = maxEntries
        self.maxRatio = maxRatio
        self.ratioGraceBytes = ratioGraceBytes
        self.maxCentralDirectoryBytes = maxCentralDirectoryBytes
    }
}
