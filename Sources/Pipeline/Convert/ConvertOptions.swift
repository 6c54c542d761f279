import KartpackCore
import Shapefile
import Styling
import TileArchive

/// One input of a conversion.
public struct ConvertInput: Sendable {
    /// Path of the `.shp`.
    public var path: String
    /// Output layer name (defaults to the file's base name).
    public var layerName: String?
    /// CRS definition overriding the `.prj`.
    public var sourceCRS: String?
    /// Attribute encoding overriding `.cpg` and the DBF code page.
    public var encoding: String?
    /// Only records matching these filters are used; the others are counted as rejected (`filtered_out`).
    public var filter: AttributeFilterList?
    /// Attributes kept (case-insensitive); nil keeps all.
    public var keep: [String]?
    /// Attribute renames (old name, case-insensitive → new name), applied after `keep`.
    public var rename: [(from: String, to: String)] = []
    /// Zoom range of this input within the conversion's range.
    public var minZoom: Int?
    public var maxZoom: Int?
    /// Explicit sidecar files (imports find mixed-case names); nil looks them up next to `path`.
    public var files: ShapefileSet?

    /// Creates an input.
    public init(path: String, layerName: String? = nil, sourceCRS: String? = nil, encoding: String? = nil) {
        self.path = path
        self.layerName = layerName
        self.sourceCRS = sourceCRS
        self.encoding = encoding
    }
}

/// A region the features are clipped to (region packaging): polygons from a Shapefile or a WGS84 box.
public struct ClipOptions: Sendable {
    /// Where the region comes from.
    public enum Source: Sendable {
        /// The union of the polygons of a Shapefile (optionally only the records matching `filter`).
        case polygons(path: String, filter: AttributeFilterList?, sourceCRS: String?)
        /// A longitude/latitude box.
        case bbox(Bounds)
    }
    public var source: Source
    /// Buffer around the region, in metres.
    public var buffer: Double

    /// Creates clip options.
    public init(source: Source, buffer: Double = 0) {
        self.source = source
        self.buffer = buffer
    }
}

/// Everything `kartpack convert` needs. Defaults follow the ecosystem (tippecanoe, GDAL, planetiler).
public struct ConvertOptions: Sendable {
    public var inputs: [ConvertInput]
    public var output: String
    public var format: ArchiveFormat
    public var minZoom: Int = 0
    public var maxZoom: Int = 14
    /// Tile extent (MVT grid size).
    public var extent: Int = 4096
    /// Simplification tolerance in tile units (1 = 1/4096 of a tile at extent 4096).
    public var simplify: Double = 1
    /// Clip buffer around each tile, in tile units (80 = 5 screen pixels of a 256-px tile).
    public var buffer: Double = 80
    /// Worker threads for the feature and tile phases.
    public var threads: Int = 1
    /// Replace an existing output.
    public var force: Bool = false
    /// An integer attribute to use as feature id instead of the record number.
    public var idField: String?
    /// Largest compressed tile, in bytes.
    public var maxTileBytes: Int = 500_000
    /// Most features in one tile (all layers).
    public var maxTileFeatures: Int = 200_000
    /// Package metadata.
    public var name: String?
    public var description: String?
    public var attribution: String?
    /// Folder for temporary files (default: the output's folder).
    public var temporaryDirectory: String?
    /// A stylesheet: class names, zoom ranges, output layers, kept attributes and exclusions per feature.
    public var style: Stylesheet?
    /// Clip every feature to a region.
    public var clip: ClipOptions?
    /// Extra metadata entries (e.g. the pipeline's input fingerprint), written as strings.
    public var extraMetadata: [(key: String, value: String)] = []

    /// Creates options with defaults.
    public init(inputs: [ConvertInput], output: String, format: ArchiveFormat) {
        self.inputs = inputs
        self.output = output
        self.format = format
    }
}
