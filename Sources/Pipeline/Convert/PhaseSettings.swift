import KartpackCore
import Styling
import TileArchive

// The settings each phase of `convert` reads: a few fields each, taken from the 44-field `ConvertOptions` here
// (and in `EncodeSettings`, which needs the output layers), so a reader sees what each phase depends on. The
// order phase reads one setting, the writer's tile order (`OrderPhase(order:)`).

/// What the read phase reads: the inputs, the package's zoom range (an input's own range is clamped to it), the
/// default feature ids and the stylesheet.
struct ReadSettings: Sendable {
    var inputs: [ConvertInput]
    var minZoom: Int
    var maxZoom: Int
    /// The attribute whose value is the feature id, unless an input names its own; nil numbers by record.
    var idField: String?
    /// What a missing or repeated id does, unless an input says otherwise.
    var idPolicy: FeatureIDScheme.Policy
    var style: Stylesheet?

    init(options o: ConvertOptions) {
        inputs = o.inputs
        minZoom = o.minZoom
        maxZoom = o.maxZoom
        idField = o.idField
        idPolicy = o.idPolicy
        style = o.style
    }
}

/// Where and when pieces, records and finished tiles leave memory (`PieceSpool`, `RecordSpill`, `EncodedTiles`).
struct SpillSettings: Sendable {
    /// `--memory-budget`.
    var budget: Int
    /// The archive's tile order: the order the sort runs are written in.
    var tileOrder: TileOrder
    /// The scratch folder.
    var scratch: ScratchPlace
    /// Runs are written on a thread of their own (more than one worker thread).
    var background: Bool

    init(options o: ConvertOptions) {
        budget = o.memoryBudget
        tileOrder = o.format.tileOrder
        scratch = ScratchPlace(options: o)
        background = o.threads > 1
    }
}

/// What the feature phase reads: the tiling (zooms, grid, buffer, simplification, small features), its worker
/// threads and the spill of the pieces and records it makes.
struct FeatureSettings: Sendable {
    var tiling: TilingParameters
    var threads: Int
    var spill: SpillSettings

    init(options o: ConvertOptions) {
        tiling = TilingParameters(options: o)
        threads = o.threads
        spill = SpillSettings(options: o)
    }
}

/// What the publish phase reads: the archive (format, path, overwrite, temporary folder) and the package
/// metadata's keys.
struct PublishSettings: Sendable {
    var format: ArchiveFormat
    var output: String
    /// Replace an existing output.
    var force: Bool
    /// Folder for the writer's temporary file (nil: next to the output).
    var temporaryDirectory: String?
    var minZoom: Int
    var maxZoom: Int
    var name: String?
    var description: String?
    var attribution: String?
    /// Extra metadata entries, written as strings.
    var extraMetadata: [(key: String, value: String)]

    init(options o: ConvertOptions) {
        format = o.format
        output = o.output
        force = o.force
        temporaryDirectory = o.temporaryDirectory
        minZoom = o.minZoom
        maxZoom = o.maxZoom
        name = o.name
        description = o.description
        attribution = o.attribution
        extraMetadata = o.extraMetadata
    }
}
