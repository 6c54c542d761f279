import KartpackCore
import Styling
import TileArchive

// The settings each phase of `convert` reads: a few fields each, taken from the 44-field `ConvertOptions` here
// (and in `EncodeSettings`, which needs the output layers), so a reader sees what each phase depends on. The
// order phase reads one setting, the writer's tile order (`OrderPhase(order:)`).

/// What the read phase reads: the inputs, the package's zoom range (an input's own range is clamped to it), the
/// default feature ids and the stylesheet.
package struct ReadSettings: Sendable {
    package var inputs: [ConvertInput]
    package var minZoom: Int
    package var maxZoom: Int
    /// The attribute whose value is the feature id, unless an input names its own; nil numbers by record.
    package var idField: String?
    /// What a missing or repeated id does, unless an input says otherwise.
    package var idPolicy: FeatureIDScheme.Policy
    package var style: Stylesheet?
    /// A shard's records are tested before they are decoded (`RecordBoxFilter`): a range shard's by its tiles.
    package var recordBoxes: RecordBoxFilter?

    package init(options o: ConvertOptions) {
        recordBoxes = ShardFootprint(options: o)?.recordBoxFilter
        recordBoxes?.readWhole = o.shard?.untrustedBoxes.paths ?? []
        inputs = o.inputs
        minZoom = o.minZoom
        maxZoom = o.maxZoom
        idField = o.idField
        idPolicy = o.idPolicy
        style = o.style
    }
}

/// Where and when pieces, records and finished tiles leave memory (`PieceSpool`, `RecordSpill`, `EncodedTiles`).
package struct SpillSettings: Sendable {
    /// `--memory-budget`.
    package var budget: Int
    /// The archive's tile order: the order the sort runs are written in.
    package var tileOrder: TileOrder
    /// The scratch folder.
    package var scratch: ScratchPlace
    /// Runs are written on a thread of their own (more than one worker thread).
    var background: Bool

    package init(options o: ConvertOptions) {
        budget = o.memoryBudget
        tileOrder = o.format.tileOrder
        scratch = ScratchPlace(options: o)
        background = o.threads > 1
    }
}

/// What the feature phase reads: the tiling (zooms, grid, buffer, simplification, small features), its worker
/// threads and the spill of the pieces and records it makes.
package struct FeatureSettings: Sendable {
    var tiling: TilingParameters
    package var threads: Int
    var spill: SpillSettings
    /// The output layers, in their fixed order (`LayerRegistry.outputNames`).
    var outputNames: [String]
    /// `run`'s piece store (`PieceReuse`); nil tiles every feature and keeps nothing.
    var pieces: PieceReuse?
    /// A shard's notes of its features for the merge (`ShardFeatureNotes`); nil when the merge needs none.
    var notes: ShardFeatureNotes?
    /// The drop order measures the features' sizes (`--thinning smallest`): a night keeps them for the features
    /// whose pieces stay in the store (`LazyPieces`).
    var thinningBySize = false

    package init(options o: ConvertOptions) {
        thinningBySize = o.thinning.mode == .smallest
        pieces = o.pieceReuse
        notes = ShardFeatureNotes(options: o)
        tiling = TilingParameters(options: o)
        threads = o.threads
        spill = SpillSettings(options: o)
        outputNames = LayerRegistry.outputNames(o)
    }
}

/// What the publish phase reads: the archive (format, path, overwrite, temporary folder) and the package
/// metadata's keys.
package struct PublishSettings: Sendable {
    package var format: ArchiveFormat
    package var output: String
    /// Replace an existing output.
    package var force: Bool
    /// Folder for the writer's temporary file (nil: next to the output).
    package var temporaryDirectory: String?
    package var minZoom: Int
    package var maxZoom: Int
    package var name: String?
    package var description: String?
    package var attribution: String?
    /// Extra metadata entries, written as strings.
    package var extraMetadata: [(key: String, value: String)]
    /// `ConvertOptions.missingLayersText`.
    package var missingLayersText: (@Sendable ([ConvertReport.Input]) -> String?)?

    package init(options o: ConvertOptions) {
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
        missingLayersText = o.missingLayersText
    }
}
