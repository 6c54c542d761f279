import TileArchive

/// What the encode phase reads of a conversion's options (`init(options:outputs:compression:)`, the one place it
/// is taken from `ConvertOptions`).
package struct EncodeSettings: Sendable {
    /// Output layer names, by layer index.
    var layerNames: [String]
    package var extent: Int
    package var maxTileBytes: Int
    package var maxTileFeatures: Int
    package var threads: Int
    /// The package's max zoom: nothing is dropped there.
    package var maxZoom: Int
    /// The archive's tile compression (the writer's declaration).
    package var compression: TileCompression
    /// Simplifies polygon pieces per tile and layer (nil: `TileStage` simplified them per feature).
    package var sharedBorders: SharedBorderPass?
    /// How over-limit zooms are thinned.
    package var thinning = ThinningOptions()
    /// Most points per tile, per output layer (nil: no limit; empty: none).
    package var maxPoints: [Int?] = []
    /// Per output layer: thinned polygons and lines merge into kept neighbours (`--coalesce`, a sheet's `coalesce`;
    /// empty: none).
    package var coalesce: [Bool] = []
    /// Replaces small polygons and lines by squares that keep their area per tile (nil: off).
    package var smallFeatures: SmallFeatureReduction?
    /// Per output layer, per feature: its thinning tier (`ThinningTraits.tiers`; empty: tier 0).
    var tiers: [[Int16]] = []
    /// Per output layer, per feature: its identity class for coalescing (`ThinningTraits.identities`; empty: none).
    var identities: [[Int32]] = []
    /// Per output layer, per feature: last night's package had it as it is (`ThinningTraits.unchanged`; empty:
    /// none), so `TileReuse` may take the signature of a tile made only of such features from the index.
    var unchanged: [[Bool]] = []
    /// Pieces of a zoom merged at a time (whole tiles; more when one tile has more): what the encode phase holds
    /// of a zoom when the pieces were spilled to sort runs.
    var batchPieces = 1 << 16
    /// Bytes of prepared batches a zoom holds for its next thinning round (`HeldBatches`) rather than merging and
    /// preparing them again (the first batch is held whatever its size).
    var keepBytes = 64 << 20
    /// A shard's tiles of each zoom (`ConvertOptions.shard`; nil: every tile).
    var shardZooms: ShardZooms?
    /// Tiles copied from the previous package when unchanged, and tonight's tile index (`run`; nil: none).
    var reuse: TileReuse?

    /// The prepared batches held for the next round under a memory budget: a quarter of it (64 MiB at the default
    /// 256 MiB). The encode phase holds little else of the budget: the sort's pieces are in runs or are the batch.
    static func keepBytes(budget: Int) -> Int { budget / 4 }

    /// The batch for a memory budget: a piece and its simplified copy take a few hundred bytes, so a batch of
    /// `budget / 4096` pieces (65,536 at the default 256 MiB) stays under a tenth of the budget; at least 16.
    static func batchPieces(budget: Int) -> Int { max(16, budget / 4096) }

    /// The settings of a conversion with the output layers the feature phase made and the archive's compression.
    package init(options o: ConvertOptions, outputs: [OutputLayer], compression: TileCompression) {
        layerNames = outputs.map(\.name)
        extent = o.extent
        maxTileBytes = o.maxTileBytes
        maxTileFeatures = o.maxTileFeatures
        threads = o.threads
        maxZoom = o.maxZoom
        self.compression = compression
        if o.sharedBorders {
            sharedBorders = SharedBorderPass(
                tolerance: o.simplify, extent: o.extent, buffer: o.buffer, smallFeatureSize: o.smallFeatureSize)
        }
        thinning = o.thinning
        maxPoints = Converter.maxPoints(o.maxPoints, outputs: outputs)
        coalesce = Converter.coalescingLayers(o, outputs: outputs)
        if o.smallFeatures { smallFeatures = SmallFeatureReduction(size: o.smallFeatureSize) }
        tiers = outputs.map(\.traits.tiers)
        identities = outputs.map(\.traits.identities)
        unchanged = outputs.map(\.traits.unchanged)
        batchPieces = Self.batchPieces(budget: o.memoryBudget)
        keepBytes = Self.keepBytes(budget: o.memoryBudget)
        shardZooms = o.shard.map {
            ShardZooms(tiles: $0.tiles, splitZoom: $0.splitZoom, order: o.format.tileOrder)
        }
        reuse = o.tileReuse
    }
}
