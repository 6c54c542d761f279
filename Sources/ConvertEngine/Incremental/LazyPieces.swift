import KartpackCore

/// The pieces a night (`run`) leaves in last night's piece store: at the zooms above every zoom last night thinned
/// (`zooms`), a feature last night's package had as it is (`PieceReuse.claim`) has the same pieces in the same
/// tiles, so a tile none of tonight's changes touches (`dirty`) has last night's bytes and is copied without its
/// pieces (`TileReuse`, lazy zooms). Such a feature's pieces at those zooms are not decoded, spooled or sorted: the
/// feature is noted here (its bounds, its record's place in the store) and its pieces are read back only for the
/// tiles that are dirty (`TiledLayers.settleLazyPieces`). What the encode phase needs of every feature — its
/// highest zoom, its drop-order measure (`FeatureSummary`) — is kept instead.
///
/// A tile is dirty at a lazy zoom when a piece of a feature that is not lazy is there tonight (added, changed, or
/// re-classified), or a piece of last night's that no feature of tonight's took (`PieceStore.records` of the
/// digests nobody claimed) was there. `KARTPACK_CHECK_UNSIGNED` keeps every piece decoded and proves the rule
/// instead: a tile not dirty must have last night's signature (`TileReuse`), and every piece must lie in the tiles
/// its feature's bounds give.
struct LazyPieces: Sendable {
    /// One feature whose pieces at the lazy zooms stay in the store.
    struct Feature: Sendable {
        /// Its bounds in Web Mercator metres, rounded outward.
        var minX: Float
        var minY: Float
        var maxX: Float
        var maxY: Float
        /// The store's key table entry of its record (`PieceStore.checkedRecord(entry:damaged:)`).
        var entry: UInt32
        var feature: Int32
        /// Its label point's feature in the label layer (-1: none).
        var labelFeature: Int32
        var layer: UInt16
        var labelLayer: UInt16
        /// Its zooms, and its label pieces' highest zoom (-1: none).
        var low: UInt8
        var high: UInt8
        var labelTop: Int8
        /// Its pieces are in the spool all the same (`checking`).
        var decoded: Bool
    }

    /// The zooms left in the store.
    let zooms: ZoomSet
    /// `KARTPACK_CHECK_UNSIGNED`: pieces are decoded all the same and the rule checked.
    let checking: Bool
    /// Tonight's tile order's index in `FeatureSummary.orders`.
    let order: Int
    private(set) var features: [Feature] = []
    /// Per feature (beside `features`), its pieces' summary in tonight's tile order (`summary(_:)`: anchor and
    /// highest zoom, and the size only when the drop order measures sizes, `withSizes`); its label pieces', by index.
    private var anchors: [FeatureAnchor] = []
    private var tops: [Int8] = []
    private var sizes: [Double] = []
    private(set) var labelSummaries: [Int: FeatureSummary] = [:]
    /// The drop order measures sizes (`smallest`).
    let withSizes: Bool
    /// Per lazy zoom, the tiles tonight's changes touch.
    private(set) var dirty: [Int: Set<TileCoordinate>] = [:]
    /// The key table entries of last night's records whose features no feature of tonight took (`FeatureClaims`),
    /// nil when they could not be known (the pieces are then all read back).
    var unclaimed: [Int]?
    /// Why every piece must be read back after all (an input rolled back after its features took last night's
    /// digests), nil while the pieces may stay in the store.
    var readAllBecause: String?
    /// Whether the package has label layers (a gone record without label pieces may have had them).
    var hasLabels = false
    /// Why the rule cannot hold tonight (checked: a piece outside its feature's bounds), nil while it holds.
    private(set) var broken: String?

    /// How pieces are buffered (`tiles(_:zoom:parameters:)`).
    let parameters: TilingParameters

    init(zooms: ZoomSet, checking: Bool, order: Int, parameters: TilingParameters, withSizes: Bool) {
        self.withSizes = withSizes
        self.zooms = zooms
        self.checking = checking
        self.order = order
        self.parameters = parameters
    }

    /// Notes a piece added to the spool by a feature that is not lazy: its tile is dirty at a lazy zoom.
    mutating func noteAdded(_ tile: TileCoordinate) {
        guard zooms.contains(tile.z) else { return }
        dirty[tile.z, default: []].insert(tile)
    }

    /// Marks the tiles of `pieces` dirty (last night's pieces of a feature no longer there as it was).
    mutating func noteGone(_ tiles: some Sequence<TileCoordinate>) {
        for t in tiles { noteAdded(t) }
    }

    /// Marks the tiles of the lazy zooms' pieces of `record` (a store record with its check before it) dirty: last
    /// night's pieces of a feature none of tonight's took. The record under a key is the first feature's of that
    /// geometry, whose style may have given other zooms: at a lazy zoom where it has no block (outside its zooms,
    /// or no label point), every tile its bounds give is marked. False when the record does not parse.
    mutating func noteGone(record: [UInt8]) -> Bool {
        guard let decoded = PieceRecord.decode(record, from: 8, leaving: ZoomSet(0..<32)) else { return false }
        let t = decoded.tiling
        for z in zooms.zooms {
            for label in [false, true] {
                let blocks = decoded.left.blocks.filter { Int($0.zoom) == z && $0.label == label }
                if blocks.isEmpty, label ? hasLabels : !t.zooms.contains(z) {
                    guard let range = Self.tiles(bounds: t.bounds, zoom: z, parameters: parameters) else { continue }
                    noteGone(range)
                }
                for b in blocks { noteGone(ReadBack.tiles(of: b, in: record)) }
            }
        }
        return true
    }

    /// Marks the tiles of the lazy zooms' pieces of a lazy feature's own record dirty (`decoded`: the record with
    /// every block left).
    mutating func noteGone(record: [UInt8], decoded: PieceRecord.Decoded) {
        for b in decoded.left.blocks where zooms.contains(Int(b.zoom)) { noteGone(ReadBack.tiles(of: b, in: record)) }
    }

    /// Takes lazy feature `i` as read back (its pieces are in the spool).
    mutating func markRead(_ i: Int) { features[i].decoded = true }

    /// Notes a lazy feature (its summaries as the record keeps them).
    mutating func add(_ f: Feature, summary: FeatureSummary?, labelSummary: FeatureSummary?) {
        if let labelSummary { labelSummaries[features.count] = labelSummary }
        let s = summary ?? FeatureSummary(top: -1, anchor: FeatureAnchor(), size: 0)
        anchors.append(s.anchor)
        tops.append(s.top)
        if withSizes { sizes.append(s.size) }
        features.append(f)
    }

    /// Feature `i`'s summary (its size 0 without `withSizes`).
    func summary(_ i: Int) -> FeatureSummary {
        FeatureSummary(top: tops[i], anchor: anchors[i], size: withSizes ? sizes[i] : 0)
    }

    /// Sets each lazy feature's highest zoom (and its label point's) as its pieces would (`PreparePass.noteHighest`):
    /// a feature always has a piece at its highest zoom.
    func presetHighest(_ highest: inout [[Int8]]) {
        for f in features {
            highest[Int(f.layer)][Int(f.feature)] = Int8(f.high)
            if f.labelFeature >= 0 { highest[Int(f.labelLayer)][Int(f.labelFeature)] = f.labelTop }
        }
    }

    /// Gives the drop order's measure each lazy feature's summary (and its label point's) instead of its pieces.
    func preset(_ measure: inout FeatureMeasure) {
        for (i, f) in features.enumerated() {
            measure.preset(layer: Int(f.layer), feature: Int(f.feature), summary(i))
            if f.labelFeature >= 0, let label = labelSummaries[i] {
                measure.preset(layer: Int(f.labelLayer), feature: Int(f.labelFeature), label)
            }
        }
    }

    /// Records why the rule cannot be trusted tonight (every piece is then read back).
    mutating func breakRule(_ why: String) {
        if broken == nil { broken = why }
    }

    /// Checking: every piece of `pieces` at a lazy zoom lies in the tiles `f`'s bounds give (`tiles`), as the
    /// pieces left in the store are found by.
    mutating func checkBounds(_ pieces: [TilePiece], of f: Feature) {
        guard checking else { return }
        for p in pieces where zooms.contains(p.tile.z) {
            guard let range = Self.tiles(f, zoom: p.tile.z, parameters: parameters), range.contains(p.tile) else {
                breakRule("a piece in tile \(p.tile) lies outside the tiles its feature's bounds give")
                return
            }
        }
    }

    /// The tiles of zoom `z` that may hold a piece of a feature with bounds `f` (its bounds buffered as
    /// `TileStage` buffers a tile, and a little more for rounding).
    static func tiles(_ f: Feature, zoom z: Int, parameters: TilingParameters) -> TileRange? {
        let b = Bounds(minX: Double(f.minX), minY: Double(f.minY), maxX: Double(f.maxX), maxY: Double(f.maxY))
        return tiles(bounds: b, zoom: z, parameters: parameters)
    }

    /// `tiles(_:zoom:parameters:)` of bounds `b`.
    static func tiles(bounds b: Bounds, zoom z: Int, parameters: TilingParameters) -> TileRange? {
        let margin = parameters.bufferMetres(zoom: z) + SphericalMercator.tileSize(zoom: z) * 1e-6
        return SphericalMercator.tileRange(covering: b.expanded(by: margin), zoom: z)
    }

    /// Whether `range` holds a tile of `dirty`.
    static func meets(_ range: TileRange, _ dirty: Set<TileCoordinate>) -> Bool {
        if range.count <= dirty.count {
            return range.contains { dirty.contains($0) }
        }
        return dirty.contains { range.contains($0) }
    }

    /// Forgets the features of the layers past `counts` (the rollback of a rejected input).
    mutating func truncate(to counts: [Int]) {
        let keep = features.indices.filter { i in
            let f = features[i]
            return Int(f.layer) < counts.count && Int(f.feature) < counts[Int(f.layer)]
        }
        guard keep.count < features.count else { return }
        var labels: [Int: FeatureSummary] = [:]
        for (n, i) in keep.enumerated() { labels[n] = labelSummaries[i] }
        features = keep.map { features[$0] }
        anchors = keep.map { anchors[$0] }
        tops = keep.map { tops[$0] }
        if withSizes { sizes = keep.map { sizes[$0] } }
        labelSummaries = labels
    }

    /// Bounds rounded outward to Float.
    static func outward(_ b: Bounds) -> (Float, Float, Float, Float) {
        func down(_ v: Double) -> Float {
            let f = Float(v)
            return Double(f) > v ? f.nextDown : f
        }
        func up(_ v: Double) -> Float {
            let f = Float(v)
            return Double(f) < v ? f.nextUp : f
        }
        return (down(b.minX), down(b.minY), up(b.maxX), up(b.maxY))
    }
}
