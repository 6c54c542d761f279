/// What a finished archive holds.
public struct ArchiveSummary: Sendable, Hashable {
    /// The container format.
    public var format: ArchiveFormat
    /// The published path.
    public var path: String
    /// Tiles a client can fetch (PMTiles: the sum of run lengths; MBTiles: rows).
    public var addressedTiles: Int
    /// Directory entries (PMTiles) or rows (MBTiles).
    public var tileEntries: Int
    /// Distinct tile blobs stored.
    public var tileContents: Int
    /// Size of the published file.
    public var fileBytes: UInt64
    /// Lowest zoom written.
    public var minZoom: Int
    /// Highest zoom written.
    public var maxZoom: Int
    /// Bounds recorded in the archive.
    public var bounds: GeoBounds

    /// Creates a summary.
    public init(
        format: ArchiveFormat, path: String, addressedTiles: Int, tileEntries: Int, tileContents: Int,
        fileBytes: UInt64,
        minZoom: Int, maxZoom: Int, bounds: GeoBounds
    ) {
        self.format = format
        self.path = path
        self.addressedTiles = addressedTiles
        self.tileEntries = tileEntries
        self.tileContents = tileContents
        self.fileBytes = fileBytes
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
    }
}
