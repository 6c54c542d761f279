import KartpackCore

/// Per-zoom statistics of the encode phase.
package struct ZoomStats: Sendable {
    package var tiles = 0
    package var bytes = 0
    package var largest = 0
    package var features = 0
    var dropped: [ReasonCode: Int] = [:]
    var keptFraction = 1.0
    var overLimit = 0
    /// Polygon pieces that kept their unsimplified rings because shared-border simplification left them invalid.
    var sharedBorderFallbacks = 0
    /// Features left out by the limits but merged into a kept neighbour in at least one tile (`--coalesce`).
    var coalesced = 0
    /// Protected features (`thinning: never`) left out by the limits: the protected features of a tile alone
    /// were over a limit (counted in `dropped` too).
    var protectedDropped = 0
    /// Small-feature reduction per output layer (layers with no small feature at this zoom left out).
    package var smallFeatures: [Int32: SmallFeatureReduction.Counts] = [:]
}

/// What one round over a zoom at one selection found: over-limit tiles, the cut-off that fits them, features
/// present and left out (each counted once per zoom), and the statistics of the tiles made.
package struct ZoomTally {
    /// Tiles over a limit, and whether one of them is over the byte limit.
    package var over = 0
    var overBytes = false
    /// The highest cut-off at which every over-limit tile fits (when asked for).
    var fit: Int32?
    package var stats = ZoomStats()
    /// Distinct features of the zoom, and those left out by the limits and by `max-points`.
    package var present = 0
    var byLimit = 0
    var byMaxPoints = 0
    /// Protected features among `byLimit`.
    var protectedByLimit = 0
    /// Features left out by the limits but merged into a neighbour in some tile (`--coalesce`).
    var coalesced = 0
    /// Per layer, per feature: counted in this round; counted as coalesced.
    private var seen: [[Bool]] = []
    private var seenCoalesced: [[Bool]] = []

    /// Counts the features of a batch not counted yet in this round (distinct per zoom), and those left out, by
    /// reason. Nothing is counted while nothing can be left out (no drop order yet).
    package mutating func count(_ batch: EncodeBatch, selection: ZoomSelection) {
        guard let order = selection.order else { return }
        if seen.isEmpty { seen = order.position.map { [Bool](repeating: false, count: $0.count) } }
        func feature(_ l: Int, _ f: Int) {
            guard !seen[l][f] else { return }
            seen[l][f] = true
            present += 1
            if selection.keeps(layer: l, feature: f) { return }
            if selection.isExcluded(layer: l, feature: f) {
                byMaxPoints += 1
            } else if order.position[l][f] >= selection.cutoff {
                byLimit += 1
                if order.position[l][f] < order.protectedEnd { protectedByLimit += 1 }
            }
        }
        for run in batch.runs {
            for p in batch.pieces[run] { feature(Int(p.layer), Int(p.feature)) }
        }
        for a in batch.absent { feature(Int(a.layer), Int(a.feature)) }
    }

    /// Counts the features with a piece merged into a neighbour (`coalesced`, batch indices) not counted yet.
    mutating func countCoalesced(_ merged: [Int], in batch: EncodeBatch) {
        guard !merged.isEmpty else { return }
        if seenCoalesced.isEmpty {
            seenCoalesced = seen.map { [Bool](repeating: false, count: $0.count) }
        }
        for i in merged {
            let (l, f) = (Int(batch.pieces[i].layer), Int(batch.pieces[i].feature))
            guard !seenCoalesced[l][f] else { continue }
            seenCoalesced[l][f] = true
            coalesced += 1
        }
    }

    /// Adds the small-feature counts of one tile.
    package mutating func add(_ small: [Int32: SmallFeatureReduction.Counts]) {
        for (l, c) in small {
            stats.smallFeatures[l, default: .init()].reduced += c.reduced
            stats.smallFeatures[l, default: .init()].keptAsPixel += c.keptAsPixel
        }
    }

    /// Adds a tile that has features.
    package mutating func add(_ t: EncodedTile) {
        stats.tiles += 1
        stats.bytes += t.bytes.count
        stats.largest = max(stats.largest, t.bytes.count)
        stats.features += t.features
    }

    /// The zoom's statistics after its last round; `reason` is the limit that first lowered the cut-off
    /// (`hasOrder`: a drop order was made, so features may have been left out).
    package func finished(reason: ReasonCode?, hasOrder: Bool) -> ZoomStats {
        var s = stats
        // At the max zoom nothing is dropped; below it a tile stays over only when nothing more can go.
        s.overLimit = over
        guard hasOrder else { return s }
        // A coalesced feature is no longer dropped: its area or length went to a neighbour.
        let dropped = byLimit - coalesced
        if dropped > 0 { s.dropped[reason ?? .droppedBySizeLimit] = dropped }
        s.coalesced = coalesced
        s.protectedDropped = protectedByLimit
        if byMaxPoints > 0 { s.dropped[.droppedByMaxPoints] = byMaxPoints }
        if present > 0 { s.keptFraction = Double(present - byLimit - byMaxPoints) / Double(present) }
        return s
    }
}
