import KartpackCore
import Shapefile
import Styling
import TileArchive

/// One input of a conversion.
package struct ConvertInput: Sendable {
    /// Path of the `.shp`.
    package var path: String
    /// Output layer name (defaults to the file's base name).
    package var layerName: String?
    /// CRS definition overriding the `.prj`.
    package var sourceCRS: String?
    /// Attribute encoding overriding `.cpg` and the DBF code page.
    package var encoding: String?
    /// Only records matching these filters are used; the others are counted as rejected (`filtered_out`).
    package var filter: AttributeFilterList?
    /// Attributes kept (case-insensitive); nil keeps all.
    package var keep: [String]?
    /// Attribute renames (old name, case-insensitive → new name), applied after `keep`.
    package var rename: [(from: String, to: String)] = []
    /// Zoom range of this input within the conversion's range.
    package var minZoom: Int?
    package var maxZoom: Int?
    /// Explicit sidecar files (imports find mixed-case names); nil looks them up next to `path`.
    package var files: ShapefileSet?
    /// The attribute whose value is the feature id (overrides `ConvertOptions.idField`); nil uses that default.
    package var idField: String?
    /// What a missing or repeated id does (overrides `ConvertOptions.idPolicy`).
    package var idPolicy: FeatureIDScheme.Policy?
    /// How the tile limits thin this input's features (a pipeline source's `thinning`; overrides the sheet's).
    package var thinning: ThinningPolicy?
    /// The attributes coalescing compares (a pipeline source's `identity`; overrides the sheet's).
    package var identity: [String]?

    /// Creates an input.
    package init(path: String, layerName: String? = nil, sourceCRS: String? = nil, encoding: String? = nil) {
        self.path = path
        self.layerName = layerName
        self.sourceCRS = sourceCRS
        self.encoding = encoding
    }
}

/// A region the features are clipped to (region packaging): polygons from a Shapefile or a WGS84 box.
package struct ClipOptions: Sendable {
    /// Where the region comes from.
    package enum Source: Sendable {
        /// The union of the polygons of a Shapefile (optionally only the records matching `filter`).
        case polygons(path: String, filter: AttributeFilterList?, sourceCRS: String?)
        /// A longitude/latitude box.
        case bbox(Bounds)
    }
    package var source: Source
    /// Buffer around the region, in metres.
    package var buffer: Double

    /// Creates clip options.
    package init(source: Source, buffer: Double = 0) {
        self.source = source
        self.buffer = buffer
    }
}

/// Everything `kartpack convert` needs. Defaults follow the ecosystem (tippecanoe, GDAL, planetiler).
package struct ConvertOptions: Sendable {
    package var inputs: [ConvertInput]
    package var output: String
    package var format: ArchiveFormat
    package var minZoom: Int = 0
    package var maxZoom: Int = 14
    /// `--max-zoom auto`: the converter replaces `maxZoom` by the zoom `MaxZoomGuess` chooses from the inputs'
    /// vertex and point spacing before the feature phase (and records it in `maxZoomChoice`).
    package var maxZoomAuto = false
    /// What `maxZoomAuto` chose (set by the converter; the report's `maxZoomChosen`).
    package var maxZoomChoice: MaxZoomChoice?
    /// Tile extent (MVT grid size).
    package var extent: Int = 4096
    /// Simplification tolerance in tile units (1 = 1/4096 of a tile at extent 4096).
    package var simplify: Double = 1
    /// Clip buffer around each tile, in tile units (80 = 5 screen pixels of a 256-px tile).
    package var buffer: Double = 80
    /// Simplify the polygons of one layer in one tile together, so shared borders stay shared (docs/map-quality.md);
    /// false simplifies each polygon on its own.
    package var sharedBorders: Bool = true
    /// Polygons and lines smaller than `smallFeatureSize` at a zoom are replaced by as many squares (dashes) of that
    /// size as keep their area (length) per tile and layer, the others left out (docs/map-quality.md); false keeps
    /// every piece the grid leaves and drops what vanishes on it.
    package var smallFeatures: Bool = true
    /// The side of those squares in tile units (tippecanoe's `--tiny-polygon-size`, default 2).
    package var smallFeatureSize: Double = 2
    /// How zooms over the tile limits are thinned.
    package var thinning = ThinningOptions()
    /// Most points per tile: `layer` nil applies to every point layer read from an input (not label layers).
    package var maxPoints: [(layer: String?, limit: Int)] = []
    /// Worker threads for the feature and tile phases.
    package var threads: Int = 1
    /// Replace an existing output.
    package var force: Bool = false
    /// The attribute whose value is every input's feature id (integer fields as they are, character fields
    /// hashed: `FeatureIDScheme`), unless an input names its own; nil numbers features by record.
    package var idField: String?
    /// What a missing or repeated id does, unless an input says otherwise.
    package var idPolicy: FeatureIDScheme.Policy = .reject
    /// Largest compressed tile, in bytes.
    package var maxTileBytes: Int = 500_000
    /// Most features in one tile (all layers).
    package var maxTileFeatures: Int = 200_000
    /// Package metadata.
    package var name: String?
    package var description: String?
    package var attribution: String?
    /// Folder for temporary files (default: the output's folder).
    package var temporaryDirectory: String?
    /// Memory for tile pieces before they are sorted into runs on disk (`--memory-budget`, `MemoryBudget`).
    package var memoryBudget: Int = MemoryBudget.defaultBytes
    /// Folder for those sort runs (default: `temporaryDirectory`, else the output's folder).
    package var scratchDirectory: String?
    /// A stylesheet: class names, zoom ranges, output layers, kept attributes and exclusions per feature.
    package var style: Stylesheet?
    /// Clip every feature to a region.
    package var clip: ClipOptions?
    /// Extra metadata entries (e.g. the pipeline's input fingerprint), written as strings.
    package var extraMetadata: [(key: String, value: String)] = []
    /// The `kartpack_missing_layers` value for the inputs the run rejected (nil: none is written), made when the
    /// package's metadata is: one build lists every rejected input, including one rejected while its records
    /// were read, which no probe before the build can foresee (the partial policy, `StagedConversion`).
    package var missingLayersText: (@Sendable ([ConvertReport.Input]) -> String?)?
    /// Build one shard of a plan: everything is computed as for the whole package, but `output` gets a part file
    /// with only the shard's tiles (`ShardTarget`, `kartpack merge`); nil builds the package.
    package var shard: ShardTarget?
    /// `run`'s incremental build: tiles whose signature is unchanged are copied from the previous package, and the
    /// build's tile index is recorded (`TileReuse`); nil encodes every tile and records nothing.
    package var tileReuse: TileReuse?
    /// `run`'s piece store: features whose geometry, style decisions and settings match last night's are read back
    /// instead of tiled, and tonight's store is written (`PieceReuse`); nil tiles every feature.
    package var pieceReuse: PieceReuse?

    /// Creates options with defaults.
    package init(inputs: [ConvertInput], output: String, format: ArchiveFormat) {
        self.inputs = inputs
        self.output = output
        self.format = format
    }
}
