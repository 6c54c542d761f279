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
    /// Features left out by the limits but merged into a kept neighbour in at least one tile (`--coalesce`).
    var coalesced = 0
    /// Small-feature reduction per output layer (layers with no small feature at this zoom left out).
    var smallFeatures: [Int32: SmallFeatureReduction.Counts] = [:]
}

/// Phase 4 of `convert`: encodes the MVT tiles of each zoom level (in parallel), checks each with the bounded
/// decoder, compresses it as the archive does, and enforces the tile limits.
///
/// Per zoom, from the max zoom down:
/// 0. Pieces the zoom cannot keep (past the cut-off it inherits from the zoom above, or left out by `max-points`)
///    are set aside before anything else and only counted; layers that coalesce keep them.
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
///    offending tile over its own features on a size model calibrated on the tile as encoded, then checking the
///    answer compressed (searching on below it, recalibrated, if it is still over); the zoom is then encoded and
///    compressed once and checked again.
///    The cut-off only decreases from the max zoom down, so a feature shown at zoom z is shown at every higher
///    zoom. At the max zoom nothing is dropped (every feature must appear
///    there, nor at a feature's own highest zoom when its layer stops lower); a tile that stays over a limit is
///    written anyway and counted in `tilesOverLimit` with a warning.
/// 5. **Coalescing** (`coalesce`, per output layer): in each tile, the polygon and line pieces the limits leave out are
///    merged into kept neighbours (`Coalescing`), also while the cut-off is searched, so sizes count them.
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
    /// Per output layer: thinned polygons and lines merge into kept neighbours (`--coalesce`, a sheet's `coalesce`;
    /// empty: none).
    var coalesce: [Bool] = []
    /// Replaces small polygons and lines by squares that keep their area per tile (nil: off).
    var smallFeatures: SmallFeatureReduction?

    /// Pieces of a zoom merged at a time (whole tiles; more when one tile has more): what the encode phase holds
    /// of a zoom when the pieces were spilled to sort runs.
    var batchPieces = 1 << 16

    /// Bytes of prepared batches a zoom holds for its next thinning round (`Prepared`) rather than merging and
    /// preparing them again (the first batch is held whatever its size).
    var keepBytes = 64 << 20

    /// The prepared batches held for the next round under a memory budget: a quarter of it (64 MiB at the default
    /// 256 MiB). The encode phase holds little else of the budget: the sort's pieces are in runs or are the batch.
    static func keepBytes(budget: Int) -> Int { budget / 4 }

    /// The batch for a memory budget: a piece and its simplified copy take a few hundred bytes, so a batch of
    /// `budget / 4096` pieces (65,536 at the default 256 MiB) stays under a tenth of the budget; at least 16.
    static func batchPieces(budget: Int) -> Int { max(16, budget / 4096) }

    /// Which features a zoom writes: every feature at its highest zoom (the package's or its layer's max zoom),
    /// else those with `position < cutoff` not left out by `max-points`.
    private struct Selection: Sendable {
        var zoom: Int
        var cutoff: Int32
        var order: FeatureOrder?
        /// Per layer, per feature: left out by `max-points` at this zoom (empty when no layer has a limit).
        var excluded: [[Bool]] = []

        func keeps(layer l: Int, feature f: Int) -> Bool {
            guard let order else { return true }
            if Int(order.topZoom[l][f]) <= zoom { return true }
            if !excluded.isEmpty, !excluded[l].isEmpty, excluded[l][f] { return false }
            return order.position[l][f] < cutoff
        }

        /// True when `max-points` leaves the feature out at this zoom.
        func isExcluded(layer l: Int, feature f: Int) -> Bool {
            !excluded.isEmpty && !excluded[l].isEmpty && excluded[l][f]
        }
    }

    /// Tiles of a zoom ready to encode: pieces merged from the runs, polygons simplified with shared borders, and
    /// per tile (in `runs` order) the pieces small-feature reduction may replace (empty when it is off).
    private struct Batch: Sendable {
        var pieces: [PlacedPiece]
        var runs: [Range<Int>]
        var small: [[SmallFeatureReduction.Candidate]] = []
        var sharedBorderFallbacks = 0
        /// Per tile (in `runs` order), the neighbours coalescing merges into (empty until something may be dropped).
        var neighbours: [Coalescing.TileNeighbours] = []
        /// The features of pieces left out before simplification (the zoom cannot keep them), for the counts.
        var absent: [(layer: Int32, feature: Int32)] = []

        /// About the bytes the batch holds: its pieces with their commands (as the spool counts them against the
        /// budget), small-feature candidates, neighbours.
        var heldBytes: Int {
            var n = absent.count * 8
            for p in pieces { n += PieceSpool.bytes(of: p) }
            for c in small { n += c.count * MemoryLayout<SmallFeatureReduction.Candidate>.stride + 32 }
            for t in neighbours {
                for a in t.adjacent { n += a.count * 8 + 32 }
            }
            return n
        }
    }

    /// The prepared batches of a zoom held for its next thinning round, which then encodes them at once and only
    /// merges and prepares (shared borders, small features) the batches after them again: the first batch always
    /// (a zoom that comes as one, as every zoom when nothing was spilled, is prepared once), then more while they
    /// total at most `limit` bytes. They are the same batches the merge gives each round, so the bytes do not depend
    /// on how many are held.
    private struct Prepared {
        var limit: Int
        var batches: [Batch] = []
        private var bytes = 0
        /// A batch was turned away: those after it are not held either.
        private var full = false
        /// The stream ended with every batch held: the next round merges nothing.
        private(set) var isComplete = false

        init(limit: Int) { self.limit = limit }

        /// Holds `batch` (the next of the zoom's stream) when it still fits.
        mutating func offer(_ batch: Batch) {
            guard !full else { return }
            let size = batch.heldBytes
            guard batches.isEmpty || bytes + size <= limit else {
                full = true
                return
            }
            batches.append(batch)
            bytes += size
        }

        /// The zoom's stream was read to its end.
        mutating func streamEnded() { isComplete = !full }
    }

    /// What one pass over a zoom at one selection found.
    private struct ZoomPass {
        /// Tiles over a limit, and whether one of them is over the byte limit.
        var over = 0
        var overBytes = false
        /// The highest cut-off at which every over-limit tile fits (when asked for).
        var fit: Int32?
        var stats = ZoomStats()
        /// Distinct features of the zoom, and those left out by the limits and by `max-points`.
        var present = 0
        var byLimit = 0
        var byMaxPoints = 0
        /// Features left out by the limits but merged into a neighbour in some tile (`--coalesce`).
        var coalesced = 0
        /// Per layer, per feature: counted in this pass; counted as coalesced.
        var seen: [[Bool]] = []
        var seenCoalesced: [[Bool]] = []
    }

    /// One encoded tile and the batch indices of the pieces coalescing merged into a neighbour.
    private struct TileOutcome: Sendable {
        var tile: EncodedTile
        var coalesced: [Int] = []
        /// The tile's MVT size before compression.
        var raw = 0
    }

    /// Encodes every zoom, from `maxZoom` down, into `tiles` (each zoom in archive order) with its statistics.
    ///
    /// A zoom is streamed from the sort runs in batches of whole tiles (`TileRuns.forEachBatch`), and its tiles go
    /// to `tiles` as they are made, so memory holds one batch rather than a zoom. A thinning round that must be
    /// done again discards the zoom's tiles (`EncodedTiles.discard`) and encodes the zoom anew: the prepared batches
    /// it held (`Prepared`: up to `keepBytes`, always the first) at once, the rest streamed and prepared again. The
    /// bytes do not depend on the batches: every decision is per tile, or per zoom from counts summed over them.
    func run(
        _ ordered: consuming TileRuns, records: [RecordTable], zooms: ClosedRange<Int>,
        into tiles: EncodedTiles = EncodedTiles(), progress: ProgressReporter?
    ) throws -> EncodedTiles {
        var stats: [Int: ZoomStats] = [:]
        var order: FeatureOrder?
        func makeOrder() throws -> FeatureOrder {
            if let order { return order }
            // Every zoom's pieces, a batch at a time (re-merged from the runs when they were spilled), from the
            // max zoom down until every feature was seen at its highest zoom (most often the max zoom alone).
            var measure = FeatureMeasure(records: records, extent: extent, withSizes: thinning.mode == .smallest)
            for z in zooms.reversed() where !measure.isComplete {
                try ordered.forEachBatch(zoom: z, maxPieces: batchPieces) { pieces, runs in
                    for run in runs { measure.observe(pieces[run]) }
                }
            }
            let o = try FeatureOrder(measure: measure, records: records, options: thinning)
            order = o
            return o
        }
        let anyMaxPoints = maxPoints.contains { $0 != nil }
        var cutoff = Int32.max
        // The limit that first lowered the cut-off; lower zooms inherit the cut-off and its reason.
        var reason: String?
        // The highest zoom each feature had a piece at so far (zooms go down; -1: none yet): a feature not seen
        // above the current zoom is at its highest zoom there.
        var highest = records.map { [Int8](repeating: -1, count: $0.count) }
        for z in zooms.reversed() {
            // The zoom before freed its batches (its tiles are in `tiles`), the first zoom the sort's pieces: this
            // one starts from a trimmed heap, before the drop order and `max-points` allocate.
            ProcessHeap.giveBackFreePages()
            var selection = Selection(zoom: z, cutoff: cutoff, order: order)
            if anyMaxPoints {
                let o = try makeOrder()
                selection.order = o
                selection.excluded = try maxPointsExclusions(zoom: z, ordered: ordered, order: o)
            }
            // What the zoom may keep at most: its cut-off only goes down from here.
            let start = selection
            // The zoom's first prepared batches, held for its next thinning round (`Prepared`).
            var prepared = Prepared(limit: keepBytes)
            var rounds = 0
            var pass: ZoomPass
            while true {
                // Another round follows when a tile is over a limit, below the max zoom, with something to drop.
                let thinnable = z != maxZoom && cutoff > 0
                // The fitting cut-offs of over-limit tiles; the first over-limit tile of the run makes the drop
                // order they need, so the round that found it also says how far to thin (no round to find them).
                let wantFit = thinnable && rounds + 1 < 40
                pass = ZoomPass()
                // Encodes a batch; returns it with what was found for it once (the neighbours coalescing needs).
                let visit = { (batch: Batch) throws -> Batch in
                    var batch = batch
                    if self.coalesce.contains(true), selection.order != nil, batch.neighbours.isEmpty {
                        let (pieces, runs, layers) = (batch.pieces, batch.runs, self.coalesce)
                        batch.neighbours = try self.parallelMap(runs.count) { i in
                            Coalescing.neighbours(runs[i], pieces: pieces, layers: layers)
                        }
                    }
                    try tiles.add(
                        try self.encodePass(
                            batch, records: records, selection: &selection, fit: wantFit, makeOrder: makeOrder,
                            into: &pass),
                        zoom: z)
                    return batch
                }
                for i in prepared.batches.indices { prepared.batches[i] = try visit(prepared.batches[i]) }
                if !prepared.isComplete {
                    // The batches past the held ones, merged and prepared anew (those held come first again).
                    var index = 0
                    let held = prepared.batches.count
                    try ordered.forEachBatch(zoom: z, maxPieces: batchPieces, skipping: skipping(start)) { read in
                        defer { index += 1 }
                        guard index >= held else { return }
                        if CancellationFlag.process.isCancelled { throw PipelineError.interrupted(signal: 0) }
                        // The batch before is gone (its tiles are in `tiles`), unless held: its pages go back
                        // before this one allocates, not only after the zoom.
                        ProcessHeap.giveBackFreePages()
                        let batch = try prepare(read, records: records, highest: highest, zoom: z)
                        for run in read.runs {
                            for p in read.pieces[run] where highest[Int(p.layer)][Int(p.feature)] < 0 {
                                highest[Int(p.layer)][Int(p.feature)] = Int8(z)
                            }
                        }
                        for (l, f) in read.skipped where highest[Int(l)][Int(f)] < 0 {
                            highest[Int(l)][Int(f)] = Int8(z)
                        }
                        let visited = try visit(batch)
                        if thinnable { prepared.offer(visited) }
                    }
                    prepared.streamEnded()
                }
                guard thinnable, pass.over > 0 else { break }
                if reason == nil { reason = pass.overBytes ? "dropped_by_size_limit" : "dropped_by_feature_limit" }
                // The round asked for fitting cut-offs (a zoom's first round always does), so its first over-limit
                // tile made the drop order.
                try tiles.discard(zoom: z)
                if cutoff == Int32.max { cutoff = selection.order?.end ?? 0 }
                rounds += 1
                if rounds >= 40 {
                    cutoff = 0  // Give up thinning: drop everything below max zoom rather than loop.
                } else {
                    cutoff = min(cutoff, pass.fit ?? cutoff)
                }
                selection.cutoff = cutoff
            }
            var s = pass.stats
            // At the max zoom nothing is dropped; below it a tile stays over only when nothing more can go.
            s.overLimit = pass.over
            if selection.order != nil {
                // A coalesced feature is no longer dropped: its area or length went to a neighbour.
                let dropped = pass.byLimit - pass.coalesced
                if dropped > 0 { s.dropped[reason ?? "dropped_by_size_limit"] = dropped }
                s.coalesced = pass.coalesced
                if pass.byMaxPoints > 0 { s.dropped["dropped_by_max_points"] = pass.byMaxPoints }
                if pass.present > 0 {
                    s.keptFraction = Double(pass.present - pass.byLimit - pass.byMaxPoints) / Double(pass.present)
                }
            }
            stats[z] = s
            progress?.update("encoding tiles", done: zooms.upperBound - z + 1, total: zooms.count)
        }
        tiles.stats = stats
        return tiles
    }

    private func isOverLimit(_ t: EncodedTile) -> Bool { t.bytes.count > maxTileBytes || t.features > maxTileFeatures }

    /// What a zoom's merge may pass over (`TileRuns.forEachBatch`): the pieces `keeping` (the zoom's selection
    /// before its thinning rounds) cannot keep, in layers that do not coalesce (those keep every piece); nil until
    /// there is a drop order.
    ///
    /// Leaving those pieces out first means a zoom below a thinned one reads, simplifies and encodes only what it
    /// may show (at z6 of a million stands, a few percent of a tile's 330,000 pieces), not all of them; it is
    /// decided once per zoom, so the bytes do not depend on the batches.
    private func skipping(_ keeping: Selection) -> ((Int32, Int32) -> Bool)? {
        guard keeping.order != nil else { return nil }
        let coalesce = coalesce
        return { l, f in
            !(keeping.keeps(layer: Int(l), feature: Int(f)) || (Int(l) < coalesce.count && coalesce[Int(l)]))
        }
    }

    /// A batch of merged tiles of zoom `z` made ready: shared borders simplified per tile and layer, small-feature
    /// candidates found (`highest`: per layer and feature the highest zoom it had pieces at before `z`, -1 none);
    /// the pieces the merge passed over are kept as `absent` for the counts.
    private func prepare(
        _ read: ZoomStream.Batch, records: [RecordTable], highest: [[Int8]], zoom z: Int
    ) throws(PipelineError) -> Batch {
        // Pieces held in memory come with every zoom's pieces around the runs: keep only this batch's.
        let span = (read.runs.first?.lowerBound ?? 0)..<(read.runs.last?.upperBound ?? 0)
        let shift = span.lowerBound
        var batch =
            span == read.pieces.indices
            ? Batch(pieces: read.pieces, runs: read.runs)
            : Batch(
                pieces: Array(read.pieces[span]),
                runs: read.runs.map { ($0.lowerBound - shift)..<($0.upperBound - shift) })
        batch.absent = read.skipped
        let pieces = batch.pieces
        let runs = batch.runs
        if let pass = sharedBorders {
            let current = pieces
            let results = try parallelMap(runs.count) { i in pass.simplify(runs[i], pieces: current) }
            for r in results {
                for (i, c) in r.commands { batch.pieces[i].piece.commands = c }
                batch.sharedBorderFallbacks += r.fallbacks
            }
        }
        if let small = smallFeatures {
            let current = batch.pieces
            batch.small = try parallelMap(runs.count) { i in
                small.candidates(runs[i], pieces: current, records: records) { l, f in highest[Int(l)][Int(f)] <= z }
            }
        }
        return batch
    }

    /// Encodes a batch's tiles at `selection`, adds what it found to `pass` (over-limit tiles, with their fitting
    /// cut-off when `fit`; features present and left out; tile and small-feature counts) and returns its tiles
    /// that have features.
    private func encodePass(
        _ batch: Batch, records: [RecordTable], selection: inout Selection, fit: Bool,
        makeOrder: () throws -> FeatureOrder, into pass: inout ZoomPass
    ) throws -> [EncodedTile] {
        let current = selection
        let outcomes = try parallelMap(batch.runs.count) { i throws(PipelineError) in
            try encode(batch, tile: i, records: records, selection: current, compress: true)
        }
        let encoded = outcomes.map(\.tile)
        let over = encoded.indices.filter { isOverLimit(encoded[$0]) }
        pass.over += over.count
        pass.overBytes = pass.overBytes || over.contains { encoded[$0].bytes.count > maxTileBytes }
        if fit, !over.isEmpty {
            // With no drop order yet nothing was left out, so the tiles are those the order keeps at this cut-off.
            if selection.order == nil { selection.order = try makeOrder() }
            let selection = selection
            let fits = try parallelMap(over.count) { k throws(PipelineError) in
                try fittingCutoff(
                    batch, tile: over[k], encoded: encoded[over[k]], raw: outcomes[over[k]].raw, records: records,
                    selection: selection)
            }
            if let m = fits.min() { pass.fit = min(pass.fit ?? m, m) }
        }
        count(batch, selection: selection, into: &pass)
        countCoalesced(outcomes.flatMap(\.coalesced), in: batch, into: &pass)
        pass.stats.sharedBorderFallbacks += batch.sharedBorderFallbacks
        if let small = smallFeatures {
            let perTile = try parallelMap(batch.small.count) { i in
                small.decide(batch.small[i]) { l, f in current.keeps(layer: Int(l), feature: Int(f)) }.counts
            }
            for t in perTile {
                for (l, c) in t {
                    pass.stats.smallFeatures[l, default: .init()].reduced += c.reduced
                    pass.stats.smallFeatures[l, default: .init()].keptAsPixel += c.keptAsPixel
                }
            }
        }
        let made = encoded.filter { $0.features > 0 }
        for t in made {
            pass.stats.tiles += 1
            pass.stats.bytes += t.bytes.count
            pass.stats.largest = max(pass.stats.largest, t.bytes.count)
            pass.stats.features += t.features
        }
        return made
    }

    /// Counts the features of a batch not counted yet in this pass (distinct per zoom), and those left out, by
    /// reason. Nothing is counted while nothing can be left out (no drop order yet).
    private func count(_ batch: Batch, selection: Selection, into pass: inout ZoomPass) {
        guard let order = selection.order else { return }
        if pass.seen.isEmpty { pass.seen = order.position.map { [Bool](repeating: false, count: $0.count) } }
        func feature(_ l: Int, _ f: Int) {
            guard !pass.seen[l][f] else { return }
            pass.seen[l][f] = true
            pass.present += 1
            if selection.keeps(layer: l, feature: f) { return }
            if selection.isExcluded(layer: l, feature: f) {
                pass.byMaxPoints += 1
            } else if order.position[l][f] >= selection.cutoff {
                pass.byLimit += 1
            }
        }
        for run in batch.runs {
            for p in batch.pieces[run] { feature(Int(p.layer), Int(p.feature)) }
        }
        for a in batch.absent { feature(Int(a.layer), Int(a.feature)) }
    }

    /// Counts the features with a piece merged into a neighbour (`coalesced`, batch indices) not counted yet.
    private func countCoalesced(_ coalesced: [Int], in batch: Batch, into pass: inout ZoomPass) {
        guard !coalesced.isEmpty else { return }
        if pass.seenCoalesced.isEmpty {
            pass.seenCoalesced = pass.seen.map { [Bool](repeating: false, count: $0.count) }
        }
        for i in coalesced {
            let (l, f) = (Int(batch.pieces[i].layer), Int(batch.pieces[i].feature))
            guard !pass.seenCoalesced[l][f] else { continue }
            pass.seenCoalesced[l][f] = true
            pass.coalesced += 1
        }
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
                // A signal stops the phase within one tile's work (the caller reports the interruption).
                let r = Result { () throws(PipelineError) -> T in
                    if CancellationFlag.process.isCancelled { throw PipelineError.interrupted(signal: 0) }
                    return try body(i)
                }
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

    /// Per layer with a `max-points` limit N: the features left out at zoom `z`, i.e. those not among the first N
    /// in drop order of the tile of `z` their anchor lies in. Only the layer's features present at `z` are held
    /// (the zoom is streamed in batches).
    private func maxPointsExclusions(zoom z: Int, ordered: TileRuns, order: FeatureOrder) throws -> [[Bool]] {
        var excluded = order.position.map { _ in [Bool]() }
        var limited: [Int] = []
        for (l, limit) in maxPoints.enumerated() where limit != nil && l < excluded.count { limited.append(l) }
        guard !limited.isEmpty else { return excluded }
        // The features of each limited layer present at this zoom, in merge order. A point at its highest zoom is
        // always written and does not count.
        var present = limited.map { _ in [Int32]() }
        var seen = order.position.map { [Bool](repeating: false, count: $0.count) }
        try ordered.forEachBatch(zoom: z, maxPieces: batchPieces) { pieces, runs in
            for run in runs {
                for p in pieces[run] {
                    let (l, f) = (Int(p.layer), Int(p.feature))
                    guard !seen[l][f], Int(order.topZoom[l][f]) > z, let k = limited.firstIndex(of: l) else { continue }
                    seen[l][f] = true
                    present[k].append(p.feature)
                }
            }
        }
        for (k, l) in limited.enumerated() {
            guard let limit = maxPoints[l] else { continue }
            excluded[l] = [Bool](repeating: false, count: order.position[l].count)
            var features = present[k]
            features.sort { (order.position[l][Int($0)], $0) < (order.position[l][Int($1)], $1) }
            var perTile: [UInt64: Int] = [:]
            for f in features {
                let t = order.anchors[l][Int(f)].tile(zoom: z)
                let n = perTile[t, default: 0]
                if n >= limit { excluded[l][Int(f)] = true } else { perTile[t] = n + 1 }
            }
        }
        return excluded
    }

    /// The highest cut-off (below the current one) at which one over-limit tile (`tile` in the batch) fits, found
    /// over the drop positions of its own features. The search itself encodes nothing: a tile's compressed size at
    /// a cut-off is modelled as its kept pieces' geometry bytes plus a share per piece of the rest of the raw MVT
    /// (tags, keys, values), times its compression ratio, both taken from the tile as encoded (`encoded`, `raw`).
    /// The cut-off the model finds is then encoded and compressed once; when it is still over the byte limit (a
    /// thinner tile compresses differently) the model is recalibrated there and the search goes on below it (four
    /// times at most, then with compressed sizes throughout). So the cut-off returned fits exactly and the zoom's
    /// next round (at the smallest of its tiles' cut-offs) is its last; a tile costs a few encodes, not one per
    /// step of a binary search (15 to 17 raw encodes of each over-limit tile of stands-100k before).
    private func fittingCutoff(
        _ batch: Batch, tile: Int, encoded: EncodedTile, raw: Int, records: [RecordTable], selection: Selection
    ) throws(PipelineError) -> Int32 {
        guard let order = selection.order else { return 0 }
        var kept: [(position: Int32, geometry: Int)] = []
        for p in batch.pieces[batch.runs[tile]] where selection.keeps(layer: Int(p.layer), feature: Int(p.feature)) {
            kept.append((order.position[Int(p.layer)][Int(p.feature)], ProtobufWriter.packedSize(p.piece.commands)))
        }
        guard !kept.isEmpty else { return 0 }
        kept.sort { $0.position < $1.position }
        // Cut-off distinct[m] keeps the first m distinct positions: pieces[m] pieces, geometry[m] geometry bytes;
        // m = distinct.count is the tile as it is.
        var distinct: [Int32] = []
        var pieces: [Int] = []
        var geometry: [Int] = []
        var sum = 0
        for (i, k) in kept.enumerated() {
            if distinct.last != k.position {
                distinct.append(k.position)
                pieces.append(i)
                geometry.append(sum)
            }
            sum += k.geometry
        }
        pieces.append(kept.count)
        geometry.append(sum)
        let perPiece = Double(max(0, raw - sum)) / Double(kept.count)
        func model(_ m: Int) -> Double { Double(geometry[m]) + perPiece * Double(pieces[m]) }
        var ratio = Double(encoded.bytes.count) / max(1, model(distinct.count))
        func fits(_ m: Int) -> Bool { pieces[m] <= maxTileFeatures && model(m) * ratio <= Double(maxTileBytes) }
        /// Whether the tile fits at cut-off `distinct[m]`, encoded and compressed, and its compressed size (nil:
        /// over the feature limit).
        func compressed(_ m: Int) throws(PipelineError) -> (fits: Bool, size: Int?) {
            var trial = selection
            trial.cutoff = distinct[m]
            let t = try encode(batch, tile: tile, records: records, selection: trial, compress: false).tile
            guard t.features <= maxTileFeatures else { return (false, nil) }
            let size: Int
            do { size = try compression.compressWithLibdeflate(t.bytes).count } catch {
                throw .tileEncoding(tile: t.tile.description, reason: "\(error)")
            }
            return (size <= maxTileBytes, size)
        }
        var hi = distinct.count  // does not fit
        for _ in 0..<4 {
            var lo = 0  // fits (keeping nothing always fits)
            while hi - lo > 1 {
                let mid = (lo + hi) / 2
                if fits(mid) { lo = mid } else { hi = mid }
            }
            guard lo > 0 else { return distinct[0] }
            let check = try compressed(lo)
            if check.fits { return distinct[lo] }
            hi = lo
            if let size = check.size { ratio = Double(size) / max(1, model(lo)) }
        }
        var lo = 0
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if try compressed(mid).fits { lo = mid } else { hi = mid }
        }
        return distinct[lo]
    }

    /// One tile of a batch (`tile` in its runs): raw MVT while searching (`compress` false), else checked with the
    /// decoder and compressed.
    private func encode(
        _ batch: Batch, tile index: Int, records: [RecordTable], selection: Selection, compress: Bool
    ) throws(PipelineError) -> TileOutcome {
        let run = batch.runs[index]
        var builders: [MVTLayerBuilder?] = Array(repeating: nil, count: layerNames.count)
        var count = 0
        // Small pieces replaced by squares (commands) or left out (nil).
        var replaced: [Int: [UInt32]?] = [:]
        if let small = smallFeatures, index < batch.small.count, !batch.small[index].isEmpty {
            replaced =
                small.decide(batch.small[index]) { l, f in
                    selection.keeps(layer: Int(l), feature: Int(f))
                }.replaced
        }
        let (merged, coalesced) = coalesce(batch, tile: index, selection: selection, replaced: replaced)
        // A tile's pieces come in (layer, feature) order: each reader loads a spilled chunk once.
        var readers = records.map { $0.reader() }
        for i in run {
            let p = batch.pieces[i]
            let l = Int(p.layer)
            guard selection.keeps(layer: l, feature: Int(p.feature)) else { continue }
            var commands = merged[i] ?? p.piece.commands
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
            let rec: StoredRecord
            do { rec = try readers[l].record(Int(p.feature)) } catch { throw .scratch(error) }
            if builders[l] == nil { builders[l] = MVTLayerBuilder(name: layerNames[l], extent: extent) }
            let props = rec.properties(atZoom: p.piece.tile.z)
            if builders[l]?.addFeature(id: rec.id, type: type, geometry: commands, properties: props) == true {
                count += 1
            }
        }
        let tile = batch.pieces[run.lowerBound].piece.tile
        let layers = builders.compactMap { $0 }.filter { !$0.isEmpty }
        guard !layers.isEmpty else { return TileOutcome(tile: EncodedTile(tile: tile, bytes: [], features: 0)) }
        do {
            let raw = try encodeTile(layers)
            guard compress else {
                return TileOutcome(tile: EncodedTile(tile: tile, bytes: raw, features: count), coalesced: coalesced)
            }
            // Pre-publish check (formats.md §6): every tile parses as valid MVT 2.1 (commands, indices, winding,
            // UTF-8) with our own bounded decoder before it is written.
            _ = try MVTDecoder().decode(raw)
            let bytes = try compression.compressWithLibdeflate(raw)
            return TileOutcome(
                tile: EncodedTile(tile: tile, bytes: bytes, features: count), coalesced: coalesced, raw: raw.count)
        } catch {
            throw PipelineError.tileEncoding(tile: tile.description, reason: "\(error)")
        }
    }

    /// Coalescing in one tile of a batch (`--coalesce`): the new commands of kept pieces that took left-out
    /// neighbours, and the batch indices of the pieces merged. Pieces drawn as small-feature squares neither take
    /// nor give; nothing happens while nothing is left out (no neighbours found yet).
    private func coalesce(
        _ batch: Batch, tile index: Int, selection: Selection, replaced: [Int: [UInt32]?]
    ) -> (merged: [Int: [UInt32]], coalesced: [Int]) {
        guard index < batch.neighbours.count, !batch.neighbours[index].isEmpty else {
            return ([:], [])
        }
        let run = batch.runs[index]
        func piece(_ k: Int) -> PlacedPiece { batch.pieces[run.lowerBound + k] }
        let owners = Coalescing.owners(
            batch.neighbours[index],
            isOwner: { k in
                replaced[run.lowerBound + k] == nil
                    && selection.keeps(layer: Int(piece(k).layer), feature: Int(piece(k).feature))
            },
            isLeftOut: { k in
                let (l, f) = (Int(piece(k).layer), Int(piece(k).feature))
                return !selection.keeps(layer: l, feature: f) && !selection.isExcluded(layer: l, feature: f)
            })
        guard !owners.isEmpty else { return ([:], []) }
        // Each owner's left-out pieces, nearest first.
        var members: [Int: [Int]] = [:]
        for (k, o) in owners { members[o, default: []].append(k) }
        var merged: [Int: [UInt32]] = [:]
        var coalesced: [Int] = []
        for (o, group) in members.sorted(by: { $0.key < $1.key }) {
            guard let m = Coalescing.merged(piece(o).piece, with: group.map { piece($0).piece }) else { continue }
            merged[run.lowerBound + o] = m.commands
            coalesced += m.taken.map { run.lowerBound + group[$0] }
        }
        return (merged, coalesced)
    }
}
