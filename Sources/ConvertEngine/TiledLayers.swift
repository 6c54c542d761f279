import KartpackCore
/// A feature's attributes, stored once however many tiles it touches.
package struct FeatureRecord: Sendable {
    package var id: UInt64?
    package var properties: Properties
    /// The thinning rank, the feature's stable key (`FeatureKey.rank`): lower ranks are kept longer when tiles are
    /// over their limits, and a tile's features are written in rank order.
    var rank: UInt64
    /// Style class per zoom from `classBaseZoom` (empty when the feature has no class at any zoom).
    package var classes: [String?] = []
    /// Client match flags per zoom from `classBaseZoom` (empty when there are none).
    package var flags: [[String]] = []
    var classBaseZoom = 0

    /// The attributes written at zoom `z`: the properties plus `class` and the match flags (as `true`) where the
    /// style gives them there.
    package func properties(atZoom z: Int) -> Properties {
        let i = z - classBaseZoom
        let c = i >= 0 && i < classes.count ? classes[i] : nil
        let f = i >= 0 && i < flags.count ? flags[i] : []
        guard c != nil || !f.isEmpty else { return properties }
        var p = properties
        if let c { p["class"] = .string(c) }
        for key in f { p[key] = .bool(true) }
        return p
    }
}

/// One MVT layer of the package; several inputs may feed it (style `layer:`).
package struct OutputLayer: Sendable {
    package var name: String
    package var fields: [FieldDefinition] = []
    /// The layer's features, coded compactly (`RecordTable`); a piece's `feature` indexes them.
    package var records = RecordTable()
    package var family: GeometryFamily?
    /// Features per class at their highest zoom.
    package var classes: [String: Int] = [:]
    /// Features per class at each zoom they are tiled at (collapsed zooms left out; small-feature dust counts: it
    /// may be drawn as a square).
    var classesByZoom: [Int: [String: Int]] = [:]
    var hasClass = false
    /// The client match flags features of this layer may carry (Boolean fields).
    var flagKeys: [String] = []
    /// The zooms features of this layer are written at (nil until the first feature).
    package var zooms: ClosedRange<Int>?
    /// The stylesheet's `max-points` (the largest any feature of the layer gets), nil for none.
    package var maxPoints: Int?
    /// The stylesheet's `coalesce` (true when any feature of the layer gets it).
    package var coalesce = false
    /// Per feature (beside `records`): its thinning tier and identity class.
    var traits = ThinningTraits()
}

/// What the feature phase hands on: every output layer with its feature records, every tile piece (in feature
/// order, not yet in tile order; past the memory budget in sorted runs on disk), every input's report in
/// command-line order, and the data's extent.
package struct TiledLayers: Sendable {
    var outputs: [OutputLayer] = []
    var pieces: PieceSpool
    package var inputs: [ConvertReport.Input] = []
    /// Extent of everything written, in Web Mercator metres.
    var dataBounds = Bounds.empty
    /// The longitudes the written features occupy (a centre for data that crosses the antimeridian).
    var longitudes = LongitudeCoverage()
    /// How each read input set numbered its features, in input order (`kartpack_ids`).
    var idSchemes: [(layer: String, scheme: FeatureIDScheme)] = []
    /// A shard's notes of the features written (`ShardFeatureNotes`), for the merge; nil when it needs none.
    package var shardNotes: ShardFeatureNotes?
    /// A night's features whose pieces at the lazy zooms stay in last night's piece store (nil: none).
    var lazy: LazyPieces?

    /// Where the layers' feature records go past their share of the budget (nil: they stay in memory).
    let recordSpill: RecordSpill?

    /// Empty layers whose pieces go to `pieces` (by default a spool that never spills) and whose records spill to
    /// `records`.
    package init(pieces: PieceSpool = PieceSpool(), records: RecordSpill? = nil) {
        self.pieces = pieces
        recordSpill = records
    }

    /// Empty layers that spill pieces and records as `spill` says (budget, scratch folder, tile order).
    package init(spill: SpillSettings) {
        let pieces = PieceSpool(spill: spill)
        self.init(pieces: pieces, records: pieces.scratch.map { RecordSpill(scratch: $0, budget: spill.budget) })
    }

    /// Empty layers that spill as a conversion's options say.
    package init(options: ConvertOptions) { self.init(spill: SpillSettings(options: options)) }

    /// Spills the pieces past the memory budget into a sort run and each layer's records past their limit to the
    /// scratch file. Called after each feature, so a feature is never cut in two.
    package mutating func spillIfOverBudget() throws(SpillError) {
        try pieces.spillIfOverBudget()
        for i in outputs.indices { try outputs[i].records.spillIfOverLimit() }
    }

    /// Creates the output layers `names` (`LayerRegistry.outputNames`), empty, in this order, before any feature:
    /// their numbers, and so their order in tiles and metadata, do not depend on the record order.
    package mutating func number(_ names: [String]) {
        for name in names { _ = output(named: name) }
    }

    /// The index of the output layer `name` (compared byte for byte, as MVT layer names are), created on first
    /// use when `number` did not create it.
    package mutating func output(named name: String) -> Int {
        if let i = outputs.firstIndex(where: { $0.name.utf8.elementsEqual(name.utf8) }) { return i }
        outputs.append(OutputLayer(name: name, records: RecordTable(spill: recordSpill)))
        return outputs.count - 1
    }

    /// The output layers that hold features.
    package var written: [OutputLayer] { outputs.filter { !$0.records.isEmpty } }

    /// Once every input is read (rejected inputs rolled back): takes back `unchanged` from features whose rank
    /// another feature of their layer shares (`ThinningTraits.unmarkSharedRanks`) and hands every written
    /// feature's digest to tonight's piece store.
    mutating func settleFeatureDigests(_ reuse: PieceReuse) {
        var all: [TileDigest] = []
        var places: [UInt32] = []
        var unchanged = 0
        let zero = TileDigest(high: 0, low: 0)
        for i in outputs.indices {
            let records = outputs[i].records
            outputs[i].traits.unmarkSharedRanks { records.rank($0) }
            let traits = outputs[i].traits
            for (d, r) in zip(traits.digests, traits.records) where d != zero {
                all.append(d)
                places.append(r)
            }
            unchanged += traits.unchanged.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        if lazy != nil { lazy?.unclaimed = reuse.unclaimedRecords() }
        reuse.keep(features: all, records: places, unchanged: unchanged)
    }

    /// Where an input started: what `rollback` restores when the input is rejected half-way.
    package struct Checkpoint {
        fileprivate var pieces: PieceSpool.Mark
        /// The output layers without their records and traits (a copy would be copied on the next append: twice the
        /// memory).
        fileprivate var outputs: [OutputLayer]
        fileprivate var recordCounts: [Int]
        fileprivate var dataBounds: Bounds
        fileprivate var longitudes: LongitudeCoverage
    }

    package func checkpoint() -> Checkpoint {
        Checkpoint(
            pieces: pieces.mark(),
            outputs: outputs.map { l in
                var l = l
                l.records = RecordTable()
                l.traits = ThinningTraits()
                return l
            }, recordCounts: outputs.map(\.records.count), dataBounds: dataBounds,
            longitudes: longitudes)
    }

    /// Forgets everything added since `c`: a file rejected while it was read leaves nothing in the package.
    mutating func rollback(to c: Checkpoint) {
        pieces.rollback(to: c.pieces, recordCounts: c.recordCounts)
        var restored = c.outputs
        for i in restored.indices {
            swap(&restored[i].records, &outputs[i].records)
            restored[i].records.truncate(to: c.recordCounts[i])
            swap(&restored[i].traits, &outputs[i].traits)
            restored[i].traits.truncate(to: c.recordCounts[i])
        }
        outputs = restored
        dataBounds = c.dataBounds
        longitudes = c.longitudes
        lazy?.truncate(to: c.recordCounts)
        // The rolled-back features took last night's digests: what they leave is not known, every piece is read.
        lazy?.readAllBecause = "an input was rolled back"
    }
}
