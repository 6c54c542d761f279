import TileArchive

/// The `output` section: where the package goes and its metadata.
public struct OutputSpec: Sendable, Hashable {
    /// PMTiles or MBTiles (default: from the path's extension).
    public var format: ArchiveFormat
    /// Absolute path of the package; ends in `.pmtiles` or `.mbtiles`, matching `format`.
    public var path: String
    /// Package name (metadata `name`).
    public var name: String?
    /// Package description.
    public var description: String?
    /// Attribution (may hold HTML, as TileJSON allows).
    public var attribution: String?

    /// Creates an output.
    public init(format: ArchiveFormat, path: String, name: String? = nil, description: String? = nil, attribution: String? = nil) {
        self.format = format
        self.path = path
        self.name = name
        self.description = description
        self.attribution = attribution
    }

    /// Keys accepted in the section.
    static let keys = ["format", "path", "name", "description", "attribution"]
}
