import GeometryAlgorithms
import KartpackCore
import Styling
import VectorTile

/// How zooms whose tiles are over `maxTileBytes` / `maxTileFeatures` are thinned (below the max zoom).
package enum ThinningMode: String, Sendable, CaseIterable {
    /// Even density (default): features are dropped where they are densest first, so sparse areas keep theirs.
    case spacing
    /// The smallest polygons and shortest lines first (points in random order).
    case smallest
    /// By the priority attribute only (the lowest priority first).
    case priority
    /// One uniform pseudo-random cut (the behaviour before issue 14).
    case random
}

/// The thinning options: the mode and an optional priority attribute.
package struct ThinningOptions: Sendable, Hashable {
    /// How features are ordered for dropping.
    package var mode: ThinningMode = .spacing
    /// A numeric attribute: features with a higher value are kept longer (ties and missing values fall back to
    /// the pseudo-random rank; missing values go first). With `spacing`, it picks the feature kept in a crowded spot.
    package var priorityField: String?
    /// True when lower values of `priorityField` are kept longer (e.g. Natural Earth's `scalerank`).
    package var priorityAscending = false
    /// Polygons and lines left out are merged into a kept neighbour of their tile (`Coalescing`) instead of dropped.
    package var coalesce = false

    /// Creates the defaults (spacing, no priority attribute, no coalescing).
    package init(
        mode: ThinningMode = .spacing, priorityField: String? = nil, priorityAscending: Bool = false,
        coalesce: Bool = false
    ) {
        self.mode = mode
        self.priorityField = priorityField
        self.priorityAscending = priorityAscending
        self.coalesce = coalesce
    }

    /// Parses `FIELD`, `FIELD:desc` (higher kept longer) or `FIELD:asc` (lower kept longer); nil when malformed.
    package static func priority(_ text: String) -> (field: String, ascending: Bool)? {
        var field = Substring(text)
        var ascending = false
        if let colon = text.lastIndex(of: ":") {
            switch text[text.index(after: colon)...].lowercased() {
            case "asc": ascending = true
            case "desc": ascending = false
            default: return nil
            }
            field = text[..<colon]
        }
        return field.isEmpty ? nil : (String(field), ascending)
    }
}

/// A point of a feature on the world grid of 2³⁰ × 2³⁰ cells (x east, y south), from its piece at its highest zoom.
package struct FeatureAnchor: Sendable, Hashable {
    static let bits = 30
    package var x: UInt32 = 0
    package var y: UInt32 = 0

    /// The tile of zoom `z` (≤ 30) the anchor lies in, as one integer.
    package func tile(zoom z: Int) -> UInt64 {
        let s = UInt32(Self.bits - z)
        return UInt64(x >> s) << 32 | UInt64(y >> s)
    }

    /// Interleaved bits (Z order): cells of every level are contiguous ranges.
    var morton: UInt64 {
        func spread(_ v: UInt32) -> UInt64 {
            var x = UInt64(v) & 0x3FFF_FFFF
            x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
            x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
            x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F
            x = (x | x << 2) & 0x3333_3333_3333_3333
            x = (x | x << 1) & 0x5555_5555_5555_5555
            return x
        }
        return spread(x) | spread(y) << 1
    }
}

/// The drop order of every feature of a run (`position[layer][feature]`: lower positions are kept longer), and
/// each feature's anchor point. A zoom keeps the features with `position < cutoff`; the cut-off only grows with
/// the zoom, so a feature kept at zoom z is kept at every higher zoom.
///
/// `spacing` (the default) is a nested grid: on the 2ᵏ × 2ᵏ grid of the world, each occupied cell has one winner
/// (the feature of highest priority: the priority attribute, else the pseudo-random rank); a feature's level is
/// the coarsest k at which it wins its cell (a winner at k wins again at every finer level, since its cell there
/// holds a subset of the features). Features are ordered by level, then by a second hash (not by priority, which
/// would favour the winners of crowded cells): keeping the first n keeps one
/// feature per cell of some level everywhere, so the densest areas are thinned first, tiles across a seam get the
/// same density and isolated features are kept longest. Features at the very same point never win and go first.
///
/// Label points (`X_labels`, which carry their polygon's rank) take their polygon's position, so a label goes
/// with its polygon. Deterministic: no step depends on the thread count or on hash order.
package struct FeatureOrder: Sendable {
    package var position: [[Int32]]
    var anchors: [[FeatureAnchor]]
    /// Each feature's highest zoom (where nothing of it is dropped).
    var topZoom: [[Int8]]
    /// One more than the largest position: the cut-off that keeps everything.
    package var end: Int32
    /// The positions below this one are the protected features' (`thinning: never`): a cut-off below it drops
    /// protected features (`ZoomStats.protectedDropped`).
    var protectedEnd: Int32 = 0

    /// The order of the features `measure` saw (every zoom's pieces); `records` per output layer, `tiers` per
    /// output layer and feature (`ThinningTraits.tiers`; an empty layer list or layer: every feature is tier 0).
    ///
    /// Tiers come first: every feature of a higher tier is kept longer than any of a lower one, and within a tier
    /// the mode orders the features among themselves (`spacing` finds each tier's cell winners among that tier's
    /// features alone). The sorts run on two threads when `threads` > 1 (the same order: `dropOrder`).
    package init(
        measure: FeatureMeasure, records: [RecordTable], options: ThinningOptions, tiers: [[Int16]] = [],
        threads: Int = 1
    ) throws(SpillError) {
        let anchors = measure.anchors
        topZoom = measure.topZoom
        let sizes = measure.sizes
        self.anchors = anchors
        // Flatten every feature that is not a label copy of an earlier layer's feature.
        var flat: [(layer: Int32, feature: Int32)] = []
        var firstByRank: [UInt64: Int] = [:]
        firstByRank.reserveCapacity(records.reduce(0) { $0 + $1.count })
        var copies: [(layer: Int32, feature: Int32, of: Int)] = []
        for (l, rs) in records.enumerated() {
            for f in rs.indices {
                let rank = rs.rank(f)
                if let i = firstByRank[rank] {
                    copies.append((Int32(l), Int32(f), i))
                } else {
                    firstByRank[rank] = flat.count
                    flat.append((Int32(l), Int32(f)))
                }
            }
        }
        // Importance (`dropOrder`): the priority attribute (or size), then the rank.
        // `flat` is in (layer, feature) order, so each reader loads a spilled chunk once.
        var readers = records.map { $0.reader() }
        let priority: [Double] = try flat.map { lf throws(SpillError) in
            let (l, f) = (Int(lf.layer), Int(lf.feature))
            if let sizes { return sizes[l][f] }
            guard let field = options.priorityField,
                let v = Self.number(try readers[l].record(f).properties, field)
            else {
                return -Double.infinity
            }
            return options.priorityAscending ? -v : v
        }
        let tier: [Int16] = flat.map { lf in
            let (l, f) = (Int(lf.layer), Int(lf.feature))
            return l < tiers.count && !tiers[l].isEmpty ? tiers[l][f] : 0
        }
        let (order, _) = Self.dropOrder(
            priority: priority, ranks: flat.map { records[Int($0.layer)].rank(Int($0.feature)) }, tiers: tier,
            morton: options.mode == .spacing ? flat.map { anchors[Int($0.layer)][Int($0.feature)].morton } : [],
            mode: options.mode, threads: threads)
        var position = records.map { [Int32](repeating: 0, count: $0.count) }
        var flatPosition = [Int32](repeating: 0, count: flat.count)
        for (k, i) in order.enumerated() {
            position[Int(flat[i].layer)][Int(flat[i].feature)] = Int32(k)
            flatPosition[i] = Int32(k)
        }
        for c in copies { position[Int(c.layer)][Int(c.feature)] = flatPosition[c.of] }
        self.position = position
        end = Int32(flat.count)
        protectedEnd = Int32(tier.count(where: { $0 == ThinningPolicy.neverTier }))
    }

    /// A numeric attribute value (numbers, Booleans and numeric text), nil otherwise.
    package static func number(_ properties: Properties, _ field: String) -> Double? {
        let lower = field.lowercased()
        guard let i = properties.keys.firstIndex(where: { $0.lowercased() == lower }) else { return nil }
        switch properties.values[i] {
        case .int(let v): return Double(v)
        case .uint(let v): return Double(v)
        case .double(let v): return v.isFinite ? v : nil
        case .bool(let b): return b ? 1 : 0
        case .string(let s): return Double(s.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil }
        default: return nil
        }
    }
}

/// What the drop order needs to know of each feature's pieces, gathered one zoom at a time (so the pieces of a
/// spilled run never have to be in memory together): its anchor (the first vertex of its first piece at its
/// highest zoom, on the 2³⁰ world grid), that zoom, and for `smallest` its size there (polygon area or line length
/// summed over its pieces, each counted inside its own tile only so the tile buffers are not counted twice
/// (`PieceSize`), in units of a zoom-0 tile unit; 0 for points).
package struct FeatureMeasure: Sendable {
    private(set) var anchors: [[FeatureAnchor]]
    private(set) var topZoom: [[Int8]]
    private(set) var sizes: [[Double]]?
    private var sizeZoom: [[Int8]]
    package let extent: Int
    /// Features without a piece observed yet.
    private(set) var unseen: Int

    package init(records: [RecordTable], extent: Int, withSizes: Bool) {
        self.init(counts: records.map(\.count), extent: extent, withSizes: withSizes)
    }

    /// A measure of `counts[l]` features in each layer `l`, none observed yet.
    init(counts: [Int], extent: Int, withSizes: Bool) {
        unseen = counts.reduce(0, +)
        anchors = counts.map { [FeatureAnchor](repeating: FeatureAnchor(), count: $0) }
        topZoom = counts.map { [Int8](repeating: -1, count: $0) }
        sizes = withSizes ? counts.map { [Double](repeating: 0, count: $0) } : nil
        sizeZoom = withSizes ? topZoom : []
        self.extent = extent
    }

    /// Takes feature `f` of layer `l` as measured apart (`FeatureSummary`, its pieces not all in the stream): its
    /// pieces observed later count no more.
    mutating func preset(layer l: Int, feature f: Int, _ s: FeatureSummary) {
        if topZoom[l][f] < 0, s.top >= 0 { unseen -= 1 }
        topZoom[l][f] = s.top
        anchors[l][f] = s.anchor
        guard sizes != nil else { return }
        sizes?[l][f] = s.size
        sizeZoom[l][f] = Int8.max
    }

    /// What `observe` made of feature `f` of layer `l` (a measure of one feature's pieces: `FeatureSummary.of`).
    func summary(layer l: Int, feature f: Int) -> FeatureSummary {
        FeatureSummary(top: topZoom[l][f], anchor: anchors[l][f], size: sizes?[l][f] ?? 0)
    }

    /// True when every feature had a piece observed. Only a feature's pieces at its highest zoom count, so once
    /// the zooms are observed from the highest down, the zooms below add nothing.
    var isComplete: Bool { unseen == 0 }

    /// Takes in pieces in archive order (any zooms, each zoom's pieces in one or more calls, each piece once).
    mutating func observe(_ pieces: some Collection<TilePiece>) {
        let extentBits = extent.trailingZeroBitCount
        for p in pieces {
            let (l, f) = (Int(p.layer), Int(p.feature))
            let t = p.tile
            if t.z > Int(topZoom[l][f]), let first = p.geometry.firstPoint {
                if topZoom[l][f] < 0 { unseen -= 1 }
                topZoom[l][f] = Int8(t.z)
                anchors[l][f] = Self.anchor(tile: t, first: first, extentBits: extentBits)
            }
            guard sizes != nil, t.z >= Int(sizeZoom[l][f]) else { continue }
            if t.z > Int(sizeZoom[l][f]) {
                sizeZoom[l][f] = Int8(t.z)
                sizes?[l][f] = 0
            }
            sizes?[l][f] += Self.size(p, extent: extent)
        }
    }

    /// The anchor of a piece in `tile` whose first vertex is `first`: on the 2³⁰ world grid.
    static func anchor(tile t: TileCoordinate, first: TilePoint, extentBits: Int) -> FeatureAnchor {
        let gx = Int64(t.x) << extentBits + Int64(first.x)
        let gy = Int64(t.y) << extentBits + Int64(first.y)
        let shift = FeatureAnchor.bits - (t.z + extentBits)
        func scaled(_ v: Int64) -> UInt32 {
            let s = shift >= 0 ? v << shift : v >> -shift
            return UInt32(clamping: min(max(s, 0), (1 << FeatureAnchor.bits) - 1))
        }
        return FeatureAnchor(x: scaled(gx), y: scaled(gy))
    }

    /// What a piece adds to its feature's size: its polygon area or line length in its own tile, in tile units of
    /// zoom 0 (a tile unit at z is 2^-z of one at zoom 0); 0 for points.
    static func size(_ p: TilePiece, extent: Int) -> Double {
        let scale = Double(sign: .plus, exponent: -p.tile.z, significand: 1)
        switch p.type {
        case .polygon: return PieceSize.polygonArea(p.geometry, extent: extent) * scale * scale
        case .lineString: return PieceSize.lineLength(p.geometry, extent: extent) * scale
        default: return 0
        }
    }
}
