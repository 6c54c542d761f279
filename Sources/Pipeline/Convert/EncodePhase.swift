import Dispatch
import Foundation
import KartpackCore
import Synchronization
import TileArchive
import VectorTile

/// A finished tile: MVT bytes in the archive's tile compression.
struct EncodedTile: Sendable {
    var tile: TileCoordinate
    var bytes: [UInt8]
    var features: Int
}

/// Per-zoom statistics of the tile phase.
struct ZoomStats: Sendable {
    var tiles = 0
    var bytes = 0
    var largest = 0
    var features = 0
    var dropped: [String: Int] = [:]
    var keptFraction = 1.0
    var overLimit = 0
    /// Polygon pieces that kept their unsimplified rings because shared-border simplification left them invalid.
    var sharedBorderFallbacks = 0
    /// Small-feature reduction per output layer (layers with no small feature at this zoom left out).
    var smallFeatures: [Int32: SmallFeatureReduction.Counts] = [:]
}

/// Phase 4 of `convert`: encodes the MVT tiles of each zoom level (in parallel), checks each with the bounded
/// decoder, compresses it as the archive does, and enforces the tile limits.
///
/// Per zoom, from the max zoom down:
/// 1. **Shared borders** (`sharedBorders`, on by default): the polygon pieces of each layer in each tile are
///    simplified together (`SharedBorderPass`), so neighbours keep identical borders.
/// 2. **Small features** (`smallFeatures`, on by default): polygon and line pieces smaller than a square of
///    `size` tile units are replaced per tile and layer by as many squares as keep their summed area, the rest
///    left out (`SmallFeatureReduction`); not at a feature's highest zoom. Applied to the features the limits keep.
/// 3. **`max-points`**: in a layer with a limit N, each tile (of the zoom) keeps the N points that come first in
///    the drop order (`FeatureOrder`) among those lying in it; since a tile at z + 1 holds a subset of its parent's
///    points, a point kept at z is kept at z + 1. Not at a feature's highest zoom, where every feature is written.
/// 4. **Limits** (deterministic and zoom-level consistent): when a tile is over `maxTileBytes` (compressed) or
///    `maxTileFeatures`, the cut-off of the drop order (`FeatureOrder`: by spacing, size, priority or rank) is
///    lowered for the whole zoom, so every tile drops by the same rule. The cut-off that fits is searched per
///    offending tile with a binary search over its own features, estimating its compressed size from the raw
///    size and the tile's compression ratio (no compression during the search); the zoom is then encoded and
///    compressed once and checked again. The cut-off only decreases from the max zoom down, so a feature shown
///    at zoom z is shown at every higher zoom. At the max zoom nothing is dropped (every feature must appear
///    there, nor at a feature's own highest zoom when its layer stops lower); a tile that stays over a limit is
///    written anyway and counted in `tilesOverLimit` with a warning.
struct EncodePhase {
    var layerNames: [String]
    var extent: Int
    var maxTileBytes: Int
    var maxTileFeatures: Int
    var threads: Int
    var maxZoom: Int
    /// The archive's tile compression (the writer's declaration).
    var compression: TileCompression
    /// Simplifies polygon pieces per tile and layer (nil: `TileStage` simplified them per feature).
    var sharedBorders: SharedBorderPass?
    /// How over-limit zooms are thinned.
    var thinning = ThinningOptions()
    /// Most points per tile, per output layer (nil: no limit).
    var maxPoints: [Int?] = []
    /// Replaces small polygons and lines by squares that keep their area per tile (nil: off).
    var smallFeatures: SmallFeatureReduction?

    /// Which features a zoom writes: every feature at its highest zoom (the package's or its layer's max zoom),
    /// else those with `position < cutoff` not left out by `max-points`.
    private struct Selection: Sendable {
        var zoom: Int
        var cutoff: Int32
        var order: FeatureOrder?
        /// Per layer, per feature: left out by `max-points` at this zoom (empty when no layer has a limit).
        var excluded: [[Bool]] = []
        /// Per tile (in `runs` order), the pieces small-feature reduction may replace (empty when it is off).
        var small: [[SmallFeatureReduction.Candidate]] = []

        func keeps(layer l: Int, feature f: Int) -> Bool {
            guard let order else { return true }
            if Int(order.topZoom[l][f]) <= zoom { return true }
            if !excluded.isEmpty, !excluded[l].isEmpty, excluded[l][f] { return false }
            return order.position[l][f] < cutoff
        }
    }

    /// Encodes every zoom, from `maxZoom` down, into `tiles` (each zoom in `pieces` order) with its statistics.
    func run(
        _ ordered: consuming TileRuns, records: [RecordTable], zooms: ClosedRange<Int>,
        into tiles: EncodedTiles = EncodedTiles(), progress: ProgressReporter?
    ) throws -> EncodedTiles {
        var stats: [Int: ZoomStats] = [:]
        var order: FeatureOrder?
        func makeOrder() throws -> FeatureOrder {
            if let order { return order }
            // Every zoom's pieces, one zoom at a time (re-merged from the runs when they were spilled).
            var measure = FeatureMeasure(records: records, extent: extent, withSizes: thinning.mode == .smallest)
            for z in zooms.reversed() { measure.observe(try ordered.zoom(z).pieces) }
            let o = FeatureOrder(measure: measure, records: records, options: thinning)
            order = o
            return o
        }
        let anyMaxPoints = maxPoints.contains { $0 != nil }
        var cutoff = Int32.max
        // The limit that first lowered the cut-off; lower zooms inherit the cut-off and its reason.
        var reason: String?
        // Features seen at a higher zoom (zooms go down): a feature not seen yet is at its highest zoom.
        var seenAbove = records.map { [Bool](repeating: false, count: $0.count) }
        for z in zooms.reversed() {
            // One zoom's pieces at a time (merged from the sort runs when they were spilled).
            let zoomPieces = try ordered.zoom(z)
            var pieces = zoomPieces.pieces
            let runs = zoomPieces.runs
            var s = ZoomStats()
            if let pass = sharedBorders {
                let current = pieces
                let results = try parallelMap(runs.count) { i in pass.simplify(runs[i], pieces: current) }
                for r in results {
                    for (i, c) in r.commands { pieces[i].piece.commands = c }
                    s.sharedBorderFallbacks += r.fallbacks
                }
            }
            var selection = Selection(zoom: z, cutoff: cutoff, order: order)
            if let small = smallFeatures {
                let (current, above) = (pieces, seenAbove)
                selection.small = try parallelMap(runs.count) { i in
                    small.candidates(runs[i], pieces: current, records: records) { l, f in !above[Int(l)][Int(f)] }
                }
            }
            for p in pieces { seenAbove[Int(p.layer)][Int(p.feature)] = true }
            if anyMaxPoints {
                selection.order = try makeOrder()
                selection.excluded = maxPointsExclusions(zoom: z, runs: runs, pieces: pieces, order: try makeOrder())
            }
            var encoded = try encodeAll(runs, pieces: pieces, records: records, selection: selection)
            var rounds = 0
            while z != maxZoom {
                let over = encoded.indices.filter { isOverLimit(encoded[$0]) }
                guard !over.isEmpty, cutoff > 0 else { break }
                if reason == nil {
                    reason =
                        over.contains { encoded[$0].bytes.count > maxTileBytes }
                        ? "dropped_by_size_limit" : "dropped_by_feature_limit"
                }
                selection.order = try makeOrder()
                if cutoff == Int32.max { cutoff = selection.order?.end ?? 0 }
                rounds += 1
                if rounds >= 40 {
                    cutoff = 0  // Give up thinning: drop everything below max zoom rather than loop.
                } else {
                    let (current, snapshot, tilesNow) = (selection, pieces, encoded)
                    let fits = try parallelMap(over.count) { k throws(PipelineError) in
                        try fittingCutoff(
                            runs[over[k]], tile: tilesNow[over[k]], index: over[k], pieces: snapshot, records: records,
                            selection: current)
                    }
                    cutoff = min(cutoff, fits.min() ?? cutoff)
                }
                selection.cutoff = cutoff
                encoded = try encodeAll(runs, pieces: pieces, records: records, selection: selection)
            }
            // At the max zoom nothing is dropped; below it a tile stays over only when nothing more can go.
            s.overLimit = encoded.count { isOverLimit($0) }
            count(runs, pieces: pieces, selection: selection, reason: reason, into: &s)
            if smallFeatures != nil { s.smallFeatures = try smallFeatureCounts(selection) }
            encoded.removeAll { $0.features == 0 }
            for t in encoded {
                s.tiles += 1
                s.bytes += t.bytes.count
                s.largest = max(s.largest, t.bytes.count)
                s.features += t.features
            }
            try tiles.add(encoded, zoom: z)
            stats[z] = s
            progress?.update("encoding tiles", done: zooms.upperBound - z + 1, total: zooms.count)
        }
        tiles.stats = stats
        return tiles
    }

    private func isOverLimit(_ t: EncodedTile) -> Bool { t.bytes.count > maxTileBytes || t.features > maxTileFeatures }

    /// Features (distinct per zoom) left out at this zoom, by reason, and the fraction kept.
    private func count(
        _ runs: [Range<Int>], pieces: [PlacedPiece], selection: Selection, reason: String?, into s: inout ZoomStats
    ) {
        guard selection.order != nil else { return }
        var seen = Set<Int64>()
        var byLimit = 0
        var byMaxPoints = 0
        for run in runs {
            for p in pieces[run] where seen.insert(Int64(p.layer) << 32 | Int64(p.feature)).inserted {
                let (l, f) = (Int(p.layer), Int(p.feature))
                if selection.keeps(layer: l, feature: f) { continue }
                if !selection.excluded.isEmpty, !selection.excluded[l].isEmpty, selection.excluded[l][f] {
                    byMaxPoints += 1
                } else if let order = selection.order, order.position[l][f] >= selection.cutoff {
                    byLimit += 1
                }
            }
        }
        if byLimit > 0 { s.dropped[reason ?? "dropped_by_size_limit"] = byLimit }
        if byMaxPoints > 0 { s.dropped["dropped_by_max_points"] = byMaxPoints }
        if !seen.isEmpty { s.keptFraction = Double(seen.count - byLimit - byMaxPoints) / Double(seen.count) }
    }

    /// Per layer with a `max-points` limit N: the features left out at zoom `z`, i.e. those not among the first N
    /// in drop order of the tile of `z` their anchor lies in.
    private func maxPointsExclusions(zoom z: Int, runs: [Range<Int>], pieces: [PlacedPiece], order: FeatureOrder)
        -> [[Bool]]
    {
        var excluded = order.position.map { _ in [Bool]() }
        for (l, limit) in maxPoints.enumerated() {
            guard let limit, l < excluded.count else { continue }
            // A point at its highest zoom is always written and does not count.
            excluded[l] = [Bool](repeating: false, count: order.position[l].count)
            // The layer's features present at this zoom, in drop order.
            var present: [Int32] = []
            var seen = [Bool](repeating: false, count: order.position[l].count)
            for run in runs {
                for p in pieces[run]
                where Int(p.layer) == l && !seen[Int(p.feature)] && Int(order.topZoom[l][Int(p.feature)]) > z {
                    seen[Int(p.feature)] = true
                    present.append(p.feature)
                }
            }
            present.sort { (order.position[l][Int($0)], $0) < (order.position[l][Int($1)], $1) }
            var perTile: [UInt64: Int] = [:]
            for f in present {
                let t = order.anchors[l][Int(f)].tile(zoom: z)
                let n = perTile[t, default: 0]
                if n >= limit { excluded[l][Int(f)] = true } else { perTile[t] = n + 1 }
            }
        }
        return excluded
    }

    /// The highest cut-off (below the current one) at which one over-limit tile fits, by binary search over the
    /// drop positions of its own features; sizes are estimated from the raw MVT size and the tile's compression
    /// ratio at the current cut-off, so nothing is compressed here.
    private func fittingCutoff(
        _ run: Range<Int>, tile: EncodedTile, index: Int, pieces: [PlacedPiece], records: [RecordTable],
        selection: Selection
    ) throws(PipelineError) -> Int32 {
        guard let order = selection.order else { return 0 }
        var positions: [Int32] = []
        for p in pieces[run] where selection.keeps(layer: Int(p.layer), feature: Int(p.feature)) {
            positions.append(order.position[Int(p.layer)][Int(p.feature)])
        }
        positions.sort()
        var distinct: [Int32] = []
        for v in positions where distinct.last != v { distinct.append(v) }
        let raw = try encode(run, index: index, pieces: pieces, records: records, selection: selection, compress: false)
        let ratio = raw.bytes.isEmpty ? 1 : Double(tile.bytes.count) / Double(raw.bytes.count)
        // Keeping the first m distinct positions (cut-off distinct[m]); m = distinct.count is the tile as it is.
        func fits(_ m: Int) throws(PipelineError) -> Bool {
            var trial = selection
            trial.cutoff = distinct[m]
            let kept = positions.count { $0 < trial.cutoff }
            if kept > maxTileFeatures { return false }
            let t = try encode(run, index: index, pieces: pieces, records: records, selection: trial, compress: false)
            return Double(t.bytes.count) * ratio <= Double(maxTileBytes) && t.features <= maxTileFeatures
        }
        guard !distinct.isEmpty else { return 0 }
        var lo = 0  // fits (keeping nothing always fits)
        var hi = distinct.count  // does not fit
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if try fits(mid) { lo = mid } else { hi = mid }
        }
        return distinct[lo]
    }

    /// `body(i)` for i in 0..<n on up to `threads` threads; results in index order.
    private func parallelMap<T: Sendable>(
        _ n: Int, _ body: @Sendable @escaping (Int) throws(PipelineError) -> T
    ) throws(PipelineError) -> [T] {
        let results = Mutex<[Result<T, PipelineError>?]>(Array(repeating: nil, count: n))
        let next = Atomic<Int>(0)
        let workers = max(1, min(threads, n))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < n else { return }
                let r = Result { () throws(PipelineError) -> T in try body(i) }
                results.withLock { $0[i] = r }
            }
        }
        return try results.withLock { all throws(PipelineError) in
            try all.map { result throws(PipelineError) -> T in
                guard let result else { throw PipelineError.tileEncoding(tile: "?", reason: "not encoded") }
                return try result.get()
            }
        }
    }

    /// Encodes the tiles of one zoom in parallel; results keep the order of `runs`.
    private func encodeAll(
        _ runs: [Range<Int>], pieces: [PlacedPiece], records: [RecordTable], selection: Selection
    ) throws(PipelineError) -> [EncodedTile] {
        try parallelMap(runs.count) { i throws(PipelineError) in
            try encode(runs[i], index: i, pieces: pieces, records: records, selection: selection, compress: true)
        }
    }

    /// The small-feature counts of a zoom's tiles as encoded with `selection`, per layer.
    private func smallFeatureCounts(_ selection: Selection) throws(PipelineError)
        -> [Int32: SmallFeatureReduction.Counts]
    {
        guard let small = smallFeatures else { return [:] }
        let perTile = try parallelMap(selection.small.count) { i in
            small.decide(selection.small[i]) { l, f in selection.keeps(layer: Int(l), feature: Int(f)) }.counts
        }
        var total: [Int32: SmallFeatureReduction.Counts] = [:]
        for t in perTile {
            for (l, c) in t {
                total[l, default: .init()].reduced += c.reduced
                total[l, default: .init()].keptAsPixel += c.keptAsPixel
            }
        }
        return total
    }

    /// One tile (`index` in the zoom's runs): raw MVT while searching (`compress` false), else checked with the
    /// decoder and compressed.
    private func encode(
        _ run: Range<Int>, index: Int, pieces: [PlacedPiece], records: [RecordTable], selection: Selection,
        compress: Bool
    ) throws(PipelineError) -> EncodedTile {
        var builders: [MVTLayerBuilder?] = Array(repeating: nil, count: layerNames.count)
        var count = 0
        // Small pieces replaced by squares (commands) or left out (nil).
        var replaced: [Int: [UInt32]?] = [:]
        if let small = smallFeatures, index < selection.small.count, !selection.small[index].isEmpty {
            replaced =
                small.decide(selection.small[index]) { l, f in
                    selection.keeps(layer: Int(l), feature: Int(f))
                }.replaced
        }
        for i in run {
            let p = pieces[i]
            let l = Int(p.layer)
            guard selection.keeps(layer: l, feature: Int(p.feature)) else { continue }
            var commands = p.piece.commands
            var type = p.piece.type
            if let r = replaced[i] {
                guard let r else { continue }
                commands = r
                if type == .unknown {
                    type = SmallFeatureDust(p.piece.commands)?.polygon == false ? .lineString : .polygon
                }
            }
            // Dust (a small piece that is not drawn as a square) is never written as such.
            guard type != .unknown else { continue }
            let rec = records[l][Int(p.feature)]
            if builders[l] == nil { builders[l] = MVTLayerBuilder(name: layerNames[l], extent: extent) }
            let props = rec.properties(atZoom: p.piece.tile.z)
            if builders[l]?.addFeature(id: rec.id, type: type, geometry: commands, properties: props) == true {
                count += 1
            }
        }
        let tile = pieces[run.lowerBound].piece.tile
        let layers = builders.compactMap { $0 }.filter { !$0.isEmpty }
        guard !layers.isEmpty else { return EncodedTile(tile: tile, bytes: [], features: 0) }
        do {
            let raw = try encodeTile(layers)
            guard compress else { return EncodedTile(tile: tile, bytes: raw, features: count) }
            // Pre-publish check (formats.md §6): every tile parses as valid MVT 2.1 (commands, indices, winding,
            // UTF-8) with our own bounded decoder before it is written.
            _ = try MVTDecoder().decode(raw)
            return EncodedTile(tile: tile, bytes: try compression.compress(raw), features: count)
        } catch {
            throw PipelineError.tileEncoding(tile: tile.description, reason: "\(error)")
        }
    }
}
