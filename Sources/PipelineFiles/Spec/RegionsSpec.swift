/// The `regions` section: how `kartpack package PIPELINE.json` splits the pipeline into one package per region.
///
/// Every value can be overridden on the command line (`--regions`, `--id-field`, …); `run` ignores the section.
package struct RegionsSpec: Sendable, Hashable {
    /// Absolute path of the polygon Shapefile (one region per record).
    package var path: String
    /// The field holding each region's id (its file name).
    package var idField: String
    /// The field holding each region's display name (default: the id).
    package var nameField: String?
    /// Only regions whose record matches (stylesheet filter syntax, kept as text).
    package var filter: String?
    /// Buffer around each region in metres (default 0).
    package var buffer: Double
    /// Highest zoom of the region packages (default: `tiles.maxZoom`).
    package var maxZoom: Int?
    /// `"maxZoom": "auto"`: the packager chooses one max zoom for every region from the sources (`MaxZoomGuess`).
    package var maxZoomAuto = false
    /// Absolute path of the package folder (`catalog.json`, `<id>.pmtiles`).
    package var output: String
    /// Absolute path of a minisign secret key: sign the catalog.
    package var sign: String?
    /// Absolute path of a file holding the key's password.
    package var signPasswordFile: String?
    /// `"allowRemovals": true`: regions of the previous catalog may leave it (as `--allow-removals`).
    package var allowRemovals = false

    /// Creates a regions section.
    package init(
        path: String, idField: String, nameField: String? = nil, filter: String? = nil, buffer: Double = 0,
        maxZoom: Int? = nil, output: String, sign: String? = nil, signPasswordFile: String? = nil
    ) {
        self.path = path
        self.idField = idField
        self.nameField = nameField
        self.filter = filter
        self.buffer = buffer
        self.maxZoom = maxZoom
        self.output = output
        self.sign = sign
        self.signPasswordFile = signPasswordFile
    }

    /// Keys accepted in the section.
    package static let keys = [
        "path", "idField", "nameField", "filter", "buffer", "maxZoom", "output", "sign", "signPasswordFile",
        "allowRemovals",
    ]
}
