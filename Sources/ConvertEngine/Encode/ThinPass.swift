import VectorTile

/// The second encode pass: decides what each zoom keeps (`ZoomSelection`) and what each tile makes of the pieces
/// it leaves out (`TilePlan`).
///
/// - **Cut-off** (deterministic and zoom-level consistent): when a tile is over `maxTileBytes` (compressed) or
///   `maxTileFeatures`, the cut-off of the drop order (`FeatureOrder`: by spacing, size, priority or rank) is
///   lowered for the whole zoom (`fittingCutoff`), so every tile drops by the same rule; lower zooms inherit it.
/// - **`max-points`**: in a layer with a limit N, each tile keeps the N points that come first in the drop order
///   among those lying in it (`maxPointsExclusions`); since a tile at z + 1 holds a subset of its parent's points,
///   a point kept at z is kept at z + 1. Not at a feature's highest zoom, where every feature is written.
/// - **Coalescing** (`coalesce`, per output layer): in each tile, the polygon and line pieces the selection leaves
///   out are merged into kept neighbours of the same identity (`identities`, `Coalescing`); small-feature squares
///   are decided here too (`plan`).
package struct ThinPass: Sendable {
    package var maxTileBytes: Int
    package var maxTileFeatures: Int
    /// Most points per tile, per output layer (nil: no limit; empty: none).
    package var maxPoints: [Int?] = []
    /// Per output layer: thinned polygons and lines merge into kept neighbours (empty: none).
    package var coalesce: [Bool] = []
    /// Per output layer, per feature: its identity class (empty: none); coalescing merges only equal classes.
    var identities: [[Int32]] = []
    /// Replaces small polygons and lines by squares that keep their area per tile (nil: off).
    package var smallFeatures: SmallFeatureReduction?
    /// Pieces of a zoom merged at a time when the zoom is read for `max-points`.
    var batchPieces = 1 << 16
    package var workers = ParallelTiles(threads: 1)

    var hasMaxPoints: Bool { maxPoints.contains { $0 != nil } }

    func isOverLimit(_ t: EncodedTile) -> Bool { t.bytes.count > maxTileBytes || t.features > maxTileFeatures }

    /// What a zoom's merge may pass over (`TileRuns.forEachBatch`): the pieces `keeping` (the zoom's selection
    /// before its thinning rounds) cannot keep, in layers that do not coalesce (those keep every piece); nil until
    /// there is a drop order.
    ///
    /// Leaving those pieces out first means a zoom below a thinned one reads, simplifies and encodes only what it
    /// may show (at z6 of a million stands, a few percent of a tile's 330,000 pieces), not all of them; it is
    /// decided once per zoom, so the bytes do not depend on the batches.
    func skipping(_ keeping: ZoomSelection) -> ((Int32, Int32) -> Bool)? {
        guard keeping.order != nil else { return nil }
        let coalesce = coalesce
        return { l, f in
            !(keeping.keeps(layer: Int(l), feature: Int(f)) || (Int(l) < coalesce.count && coalesce[Int(l)]))
        }
    }

    /// Finds the neighbours coalescing merges into, once per batch, when something may be left out.
    func findNeighbours(_ batch: inout EncodeBatch, selection: ZoomSelection) throws(PipelineError) {
        guard coalesce.contains(true), selection.order != nil, batch.neighbours.isEmpty else { return }
        let (pieces, runs, layers) = (batch.pieces, batch.runs, coalesce)
        batch.neighbours = try workers.map(runs.count) { i in
            Coalescing.neighbours(runs[i], pieces: pieces, layers: layers)
        }
    }

    /// Per layer with a `max-points` limit N: the features left out at zoom `z`, i.e. those not among the first N
    /// in drop order of the tile of `z` their anchor lies in. Only the layer's features present at `z` are held
    /// (the zoom is streamed in batches).
    func maxPointsExclusions(zoom z: Int, ordered: TileRuns, order: FeatureOrder) throws -> [[Bool]] {
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
    /// (tags, keys, values), times its compression ratio, both taken from the tile as encoded (`compressed`,
    /// `raw` bytes). The cut-off the model finds is then encoded and compressed once (`trial`: the compressed size
    /// at a selection, nil over the feature limit); when it is still over the byte limit (a thinner tile compresses
    /// differently) the model is recalibrated there and the search goes on below it (four times at most, then with
    /// compressed sizes throughout). So the cut-off returned fits exactly and the zoom's next round (at the
    /// smallest of its tiles' cut-offs) is its last; a tile costs a few encodes, not one per step of a binary search.
    ///
    /// With `ahead` (a tile searched alone, a core to spare), each trial of the last binary search runs beside a
    /// trial of the probe that would follow it, picked by the sizes found so far (`FitProbes`): the probes, and so
    /// the cut-off, are those of the search one trial at a time.
    func fittingCutoff(
        _ batch: EncodeBatch, tile: Int, compressed: Int, raw: Int, selection: ZoomSelection, ahead: Bool = false,
        trial: @escaping @Sendable (ZoomSelection) throws(PipelineError) -> Int?
    ) throws(PipelineError) -> Int32 {
        guard let order = selection.order else { return 0 }
        var kept: [(position: Int32, geometry: Int)] = []
        for p in batch.pieces[batch.runs[tile]] where selection.keeps(layer: Int(p.layer), feature: Int(p.feature)) {
            kept.append((order.position[Int(p.layer)][Int(p.feature)], p.geometry.packedCommandSize))
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
        var ratio = Double(compressed) / max(1, model(distinct.count))
        func fits(_ m: Int) -> Bool { pieces[m] <= maxTileFeatures && model(m) * ratio <= Double(maxTileBytes) }
        var probes = FitProbes(limit: maxTileBytes)
        /// Whether the tile fits at cut-off `distinct[m]`, encoded and compressed, and its compressed size (nil:
        /// over the feature limit); with `next`, the trial at `distinct[next]` runs beside it for a later check.
        func check(_ m: Int, next: Int? = nil) throws(PipelineError) -> (fits: Bool, size: Int?) {
            if let known = probes.sizes[m] { return (known.map { $0 <= maxTileBytes } ?? false, known) }
            let ms = [m] + (next.map { [$0] } ?? [])
            let cutoffs = ms.map { distinct[$0] }
            let sizes = try workers.map(ms.count) { k throws(PipelineError) in
                var s = selection
                s.cutoff = cutoffs[k]
                return try trial(s)
            }
            for (m, size) in zip(ms, sizes) { probes.sizes[m] = size }
            guard let size = sizes[0] else { return (false, nil) }
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
            let checked = try check(lo)
            if checked.fits { return distinct[lo] }
            hi = lo
            if let size = checked.size { ratio = Double(size) / max(1, model(lo)) }
        }
        var lo = 0
        probes.sizes[0] = 0
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            let next = ahead ? probes.likelyNext(lo: lo, mid: mid, hi: hi) : nil
            if try check(mid, next: next).fits { lo = mid } else { hi = mid }
        }
        return distinct[lo]
    }

    /// What one tile of a batch (`tile` in its runs) makes of its pieces at `selection`: small pieces drawn as
    /// squares or left out, and (`--coalesce`) left-out pieces merged into kept neighbours. Pieces drawn as
    /// small-feature squares neither take nor give; nothing merges while nothing is left out (no neighbours yet).
    package func plan(_ batch: EncodeBatch, tile index: Int, selection: ZoomSelection) -> TilePlan {
        var plan = TilePlan(selection: selection)
        if let small = smallFeatures, index < batch.small.count, !batch.small[index].isEmpty {
            plan.replaced =
                small.decide(batch.small[index]) { l, f in
                    selection.keeps(layer: Int(l), feature: Int(f))
                }.replaced
        }
        guard index < batch.neighbours.count, !batch.neighbours[index].isEmpty else { return plan }
        let run = batch.runs[index]
        func piece(_ k: Int) -> TilePiece { batch.pieces[run.lowerBound + k] }
        let replaced = plan.replaced
        let identities = identities
        // A piece's identity class (0 when its layer has none): coalescing merges equal classes only.
        func identity(_ p: TilePiece) -> Int32 {
            let (l, f) = (Int(p.layer), Int(p.feature))
            return l < identities.count && !identities[l].isEmpty ? identities[l][f] : 0
        }
        let owners = Coalescing.owners(
            batch.neighbours[index],
            isOwner: { k in
                replaced[run.lowerBound + k] == nil
                    && selection.keeps(layer: Int(piece(k).layer), feature: Int(piece(k).feature))
            },
            isLeftOut: { k in
                let (l, f) = (Int(piece(k).layer), Int(piece(k).feature))
                return !selection.keeps(layer: l, feature: f) && !selection.isExcluded(layer: l, feature: f)
            },
            canJoin: { k, o in identity(piece(k)) == identity(piece(o)) })
        guard !owners.isEmpty else { return plan }
        // Each owner's left-out pieces, nearest first.
        var members: [Int: [Int]] = [:]
        for (k, o) in owners { members[o, default: []].append(k) }
        for (o, group) in members.sorted(by: { $0.key < $1.key }) {
            guard let m = Coalescing.merged(piece(o), with: group.map { piece($0) }) else { continue }
            plan.merged[run.lowerBound + o] = m.geometry
            plan.coalesced += m.taken.map { run.lowerBound + group[$0] }
        }
        return plan
    }
}
