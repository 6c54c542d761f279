import TileArchive

/// The `output` section: where the package goes and its metadata.
package struct OutputSpec: Sendable, Hashable {
    /// PMTiles or MBTiles (default: from the path's extension).
    package var format: ArchiveFormat
    /// Absolute path of the package; ends in `.pmtiles` or `.mbtiles`, matching `format`.
    package var path: String
    /// Package name (metadata `name`).
    package var name: String?
    /// Package description.
    package var description: String?
    /// Attribution (may hold HTML, as TileJSON allows).
    package var attribution: String?

    /// Creates an output.
    package init(
        format: ArchiveFormat, path: String, name: String? = nil, description: String? = nil, attribution: String? = nil
    ) {
        self.format = format
        self.path = path
        self.name = name
        self.description = description
        self.attribution = attribution
    }

    /// Keys accepted in the section.
    package static let keys = ["format", "path", "name", "description", "attribution"]
}
