import KartpackCore
import MallocTuning

/// Phase 4 of `convert`: encodes the MVT tiles of each zoom level, from the max zoom down, in three passes.
///
/// Input: the pieces in archive order (`TileRuns`, from `OrderPhase`) and each output layer's records. Output:
/// every zoom's tiles, compressed, in archive order, with per-zoom statistics (`EncodedTiles`). Settings:
/// `EncodeSettings`.
///
/// Per zoom, a batch of whole tiles at a time (`TileRuns.forEachBatch`; memory holds one batch, not a zoom):
/// 1. `PreparePass`: shared borders (the polygons of a layer in a tile simplified together) and small-feature
///    candidates, once per batch;
/// 2. `ThinPass`: what the zoom keeps (`ZoomSelection`: the cut-off inherited from the zoom above, `max-points`)
///    and what each tile makes of the rest (`TilePlan`: small-feature squares, coalescing);
/// 3. `TileEncodePass`: MVT, the decoder check, compression.
/// When a tile is over a limit below the max zoom, `ThinPass.fittingCutoff` finds the cut-off at which it fits,
/// the zoom's tiles are discarded (`EncodedTiles.discard`) and the zoom is encoded again at the lowest such
/// cut-off, for the whole zoom: the prepared batches it held (`HeldBatches`) at once, the rest merged and prepared
/// again. The cut-off only decreases from the max zoom down, so a feature shown at zoom z is shown at every higher
/// zoom. At the max zoom, and at a feature's own highest zoom, nothing is dropped; a tile that stays over a limit
/// is written anyway and counted in `tilesOverLimit`. Every decision is per tile, or per zoom from counts summed
/// over its batches, so the bytes do not depend on the batches or the thread count. With more than one thread, a
/// zoom held whole leaves its last round to the zoom below, which runs it beside its own cut-off search
/// (`DeferredRound`): the low zooms' searches, on one heavy tile or a few, would keep one core busy.
package struct EncodePhase {
    package var settings: EncodeSettings
    package var prepare: PreparePass
    var thin: ThinPass
    package var encoder: TileEncodePass
    private var workers: ParallelTiles { ParallelTiles(threads: settings.threads) }

    package init(settings: EncodeSettings) {
        self.settings = settings
        let workers = ParallelTiles(threads: settings.threads)
        prepare = PreparePass(
            sharedBorders: settings.sharedBorders, smallFeatures: settings.smallFeatures, workers: workers)
        thin = ThinPass(
            maxTileBytes: settings.maxTileBytes, maxTileFeatures: settings.maxTileFeatures,
            maxPoints: settings.maxPoints, coalesce: settings.coalesce, identities: settings.identities,
            smallFeatures: settings.smallFeatures, batchPieces: settings.batchPieces, workers: workers)
        encoder = TileEncodePass(
            layerNames: settings.layerNames, extent: settings.extent, compression: settings.compression)
    }

    /// What each zoom hands down to the one below it.
    struct Descent {
        /// The drop order, made once it is needed (`max-points`, or the first tile over a limit).
        var order: FeatureOrder?
        /// The drop order made before a zoom needs it (a replayed first round, `TileReuse`), not yet handed down:
        /// the zooms that get it are those of a full build.
        var made: FeatureOrder?
        var cutoff = Int32.max
        /// The limit that first lowered the cut-off; lower zooms inherit the cut-off and its reason.
        var reason: ReasonCode?
        /// The highest zoom each feature had a piece at so far (-1: none yet): a feature not seen above the
        /// current zoom is at its highest zoom there.
        var highest: [[Int8]]
    }

    /// Encodes every zoom, from the top of `zooms` down, into `tiles` (each zoom in archive order) with its
    /// statistics.
    package func run(
        _ ordered: consuming TileRuns, records: [RecordTable], zooms: ClosedRange<Int>,
        into tiles: EncodedTiles = EncodedTiles(), progress: ProgressReporter?
    ) throws -> EncodedTiles {
        var stats: [Int: ZoomStats] = [:]
        var descent = Descent(highest: records.map { [Int8](repeating: -1, count: $0.count) })
        // Features whose pieces stayed in the store at the lazy zooms: their highest zooms as their pieces say.
        settings.reuse?.lazy?.presetHighest(&descent.highest)
        settings.reuse?.begin(settings)
        // A thinned zoom's last round, run beside the next zoom's cut-off search (`DeferredRound`).
        var deferred: Deferral?
        defer { deferred?.round.abandon() }
        func encode(_ z: Int, deferring: Bool) throws {
            try encodeZoom(
                z, ordered: ordered, records: records, zooms: zooms, descent: &descent, into: tiles,
                deferred: &deferred, deferring: deferring, stats: &stats)
        }
        // The deferred round was over a limit after all: its zoom again from its start, in order.
        func again() throws {
            guard let d = deferred else { return }
            deferred = nil
            descent = d.start
            try encode(d.zoom, deferring: false)
        }
        for z in zooms.reversed() {
            // The zoom before freed its batches (its tiles are in `tiles`), the first zoom the sort's pieces: this
            // one starts from a trimmed heap, before the drop order and `max-points` allocate.
            ProcessHeap.giveBackFreePages()
            try checkNoMaxPoints(zoom: z)
            if shardRole(zoom: z) == .none {
                do { try settle(&deferred, into: tiles, stats: &stats) } catch is DeferredRound.NotLast { try again() }
                // A shard holding no tile of this zoom (`ShardZooms`) only notes the features' highest zooms, for
                // the zooms below that it encodes.
                if shardEncodes(below: z, from: zooms.lowerBound) {
                    try noteHighestOnly(zoom: z, ordered: ordered, highest: &descent.highest)
                }
                continue
            }
            do { try encode(z, deferring: true) } catch is DeferredRound.NotLast {
                try again()
                try encode(z, deferring: true)
            }
            progress?.update("encoding tiles", done: zooms.upperBound - z + 1, total: zooms.count)
        }
        do { try settle(&deferred, into: tiles, stats: &stats) } catch is DeferredRound.NotLast { try again() }
        tiles.stats = stats
        return tiles
    }

    /// The drop order, made on first use from every zoom's pieces, a batch at a time (re-merged from the runs when
    /// they were spilled), from the max zoom down until every feature was seen at its highest zoom.
    private func dropOrder(
        _ descent: inout Descent, ordered: TileRuns, records: [RecordTable], zooms: ClosedRange<Int>
    ) throws -> FeatureOrder {
        let order = try madeOrder(&descent, ordered: ordered, records: records, zooms: zooms)
        descent.order = order
        return order
    }

    /// The drop order (`dropOrder`), made but not handed down to the zooms below.
    private func madeOrder(
        _ descent: inout Descent, ordered: TileRuns, records: [RecordTable], zooms: ClosedRange<Int>
    ) throws -> FeatureOrder {
        if let order = descent.order ?? descent.made { return order }
        var measure = FeatureMeasure(
            records: records, extent: settings.extent, withSizes: settings.thinning.mode == .smallest)
        // Features whose top pieces stayed in the store are measured by their records' summaries.
        settings.reuse?.lazy?.preset(&measure)
        for z in zooms.reversed() where !measure.isComplete {
            try ordered.forEachBatch(zoom: z, maxPieces: settings.batchPieces) { pieces, runs in
                for run in runs { measure.observe(pieces[run]) }
            }
        }
        let order = try FeatureOrder(
            measure: measure, records: records, options: settings.thinning, tiers: settings.tiers,
            threads: settings.threads)
        descent.made = order
        return order
    }

    /// Encodes zoom `z` into `tiles`, in as many rounds as thinning takes, with its statistics into `stats`.
    /// The round `deferred` from the zoom above starts beside this zoom's cut-off search and is settled before
    /// this zoom adds tiles; when `deferring`, this zoom's own last round may be left in `deferred` for the next.
    private func encodeZoom(
        _ z: Int, ordered: TileRuns, records: [RecordTable], zooms: ClosedRange<Int>, descent: inout Descent,
        into tiles: EncodedTiles, deferred: inout Deferral?, deferring: Bool, stats: inout [Int: ZoomStats]
    ) throws {
        // With reuse, a zoom where copying saves little is encoded as without (`TileReuse.encodesWhole`): its
        // batches are held across rounds and only signed, and its last round may be deferred.
        let whole = settings.reuse.map { r in z != settings.maxZoom && descent.cutoff > 0 && r.encodesWhole(zoom: z) }
        let holds = whole ?? true
        // Where a deferred last round's zoom starts again should that round be over a limit.
        let start = deferring && settings.threads > 1 && holds ? descent : nil
        var selection = ZoomSelection(zoom: z, cutoff: descent.cutoff, order: descent.order)
        if thin.hasMaxPoints {
            let order = try dropOrder(&descent, ordered: ordered, records: records, zooms: zooms)
            selection.order = order
            selection.excluded = try thin.maxPointsExclusions(zoom: z, ordered: ordered, order: order)
        }
        // What the zoom may keep at most: its cut-off only goes down from here.
        let skip = thin.skipping(selection)
        var held = HeldBatches(limit: settings.keepBytes)
        // With reuse (not whole), what is held across rounds is prepared tiles, not batches (each round copies other
        // tiles).
        var kept = PreparedTiles(limit: settings.keepBytes)
        var rounds = 0
        // A replayed first round found no tile over a limit: it is encoded again (copying unchanged tiles).
        var replayFailed = false
        var tally: ZoomTally
        while true {
            // Another round follows when a tile is over a limit, below the max zoom, with something to drop.
            let thinnable = z != settings.maxZoom && descent.cutoff > 0
            // The fitting cut-offs of over-limit tiles; the first over-limit tile of the run makes the drop order
            // they need, so the round that found it also says how far to thin (no round to find them).
            let fit = thinnable && rounds + 1 < 40
            tally = ZoomTally()
            let first = rounds == 0 && thinnable
            if deferring, rounds > 0, z > zooms.lowerBound, settings.threads > 1, holds,
                settings.reuse == nil || held.signed.count == held.batches.count, held.isComplete,
                held.bytes <= settings.keepBytes / 2, selection.order != nil, let start
            {
                // Every batch is held and the cut-off lowered: the last round goes beside the next zoom's search.
                try settle(&deferred, into: tiles, stats: &stats)
                let round = lastRound(
                    held.batches, signed: held.signed, zoom: z, records: records, selection: selection,
                    highest: descent.highest, fit: fit)
                deferred = Deferral(round: round, zoom: z, start: start, thinnable: thinnable, reason: descent.reason)
                settings.reuse?.endZoom(z, thinned: true)
                return
            }
            settings.reuse?.beginRound(zoom: z, first: first)
            // The first round's answers of tiles unchanged since the last build come from its index (`TileReuse`).
            let replay =
                first && !replayFailed && whole != true
                && settings.reuse?.replaysFirstRound(zoom: z, coalescing: settings.coalesce.contains(true)) == true
            var replayOrder: FeatureOrder?
            if replay { replayOrder = try madeOrder(&descent, ordered: ordered, records: records, zooms: zooms) }
            var replayed = false
            // Encodes a batch; returns it with what was found for it once (the neighbours coalescing needs).
            // A lazy zoom: last night's tiles no change touched are copied between the batches' tiles, unread.
            settings.reuse?.beginUnread(zoom: z)
            let limits = (bytes: settings.maxTileBytes, features: settings.maxTileFeatures)
            func visit(
                _ batch: EncodeBatch, reused: ReusedTiles = ReusedTiles(), upTo last: TileCoordinate? = nil
            ) throws -> EncodeBatch {
                var batch = batch
                try thin.findNeighbours(&batch, selection: selection)
                let made = try encodeRound(
                    batch, records: records, selection: &selection, fit: fit, into: &tally, beside: deferred?.round
                ) { try dropOrder(&descent, ordered: ordered, records: records, zooms: zooms) }
                try settle(&deferred, into: tiles, stats: &stats)
                var out = reused.merged(with: made, tally: &tally, selection: selection)
                if let reuse = settings.reuse, let last {
                    out = try reuse.withUnread(
                        out, zoom: z, upTo: last, tally: &tally, limits: limits, maxZoom: settings.maxZoom)
                }
                try tiles.add(out, zoom: z)
                return batch
            }
            for i in held.batches.indices {
                // A whole zoom's held batch, signed at this round's selection for tonight's index (its kept piece
                // digests combined).
                if i < held.signed.count, let reuse = settings.reuse {
                    try reuse.signHeld(
                        held.signed[i], selection: selection, records: records, highest: descent.highest,
                        identities: settings.identities, workers: workers)
                }
                held.batches[i] = try visit(held.batches[i])
            }
            if !held.isComplete {
                // The batches past the held ones, merged and prepared anew (those held come first again).
                var index = 0
                let heldCount = held.batches.count
                try ordered.forEachBatch(zoom: z, maxPieces: settings.batchPieces, skipping: skip) { read in
                    defer { index += 1 }
                    guard index >= heldCount else { return }
                    if CancellationFlag.process.isCancelled { throw PipelineError.interrupted(signal: 0) }
                    // The batch before is gone (its tiles are in `tiles`), unless held: its pages go back before
                    // this one allocates, not only after the zoom.
                    ProcessHeap.giveBackFreePages()
                    // Tiles unchanged since the last build are copied, not prepared (`TileReuse`).
                    var (fresh, reused) = (read, ReusedTiles())
                    // A whole zoom's batch: every tile signed and encoded, its piece digests kept to be held.
                    var signed: HeldSignatures?
                    if let replayOrder, let reuse = settings.reuse {
                        let answers: [ReplayedTile]
                        (fresh, answers) = try reuse.splitFirstRound(
                            shardTiles(read, zoom: z), selection: selection, order: replayOrder, records: records,
                            highest: descent.highest, identities: settings.identities, workers: workers)
                        replayed = replayed || !answers.isEmpty
                        try tallyReplayed(answers, fit: fit, selection: &selection, into: &tally) {
                            try dropOrder(&descent, ordered: ordered, records: records, zooms: zooms)
                        }
                    } else if whole == true, let reuse = settings.reuse {
                        fresh = shardTiles(read, zoom: z)
                        signed = try reuse.signWhole(
                            fresh, selection: selection, records: records, highest: descent.highest,
                            identities: settings.identities, unchanged: settings.unchanged, workers: workers)
                    } else {
                        (fresh, reused) = try reusing(
                            shardTiles(read, zoom: z), selection: selection, records: records,
                            highest: descent.highest, thinnable: thinnable)
                    }
                    let batch =
                        whole == true
                        ? try prepare.prepare(fresh, records: records, highest: descent.highest, zoom: z)
                        : try prepared(fresh, records: records, highest: descent.highest, zoom: z, kept: &kept)
                    PreparePass.noteHighest(read, zoom: z, in: &descent.highest)
                    let visited = try visit(
                        batch, reused: reused, upTo: read.runs.last.map { read.pieces[$0.lowerBound].tile })
                    // A held batch lacks its copied tiles, which another cut-off may change: with reuse, only a
                    // whole zoom's batches are held (every tile encoded), each with its piece digests to sign.
                    if thinnable, holds { held.offer(visited, signatures: signed) }
                }
                // With reuse (not whole), nothing is held, and every round reads the zoom again.
                if holds { held.streamEnded() }
            }
            if let reuse = settings.reuse, reuse.copiesUnread(zoom: z) {
                try tiles.add(
                    try reuse.withUnread(
                        [], zoom: z, upTo: nil, tally: &tally, limits: limits, maxZoom: settings.maxZoom),
                    zoom: z)
                // Thinned tonight, not last night: the pieces left in the store are needed after all.
                if thinnable, tally.over > 0 { throw TileReuseError.lazyZoomThinned(zoom: z) }
            }
            try settings.reuse?.checkUnread(zoom: z)
            guard thinnable, tally.over > 0 else {
                // The replayed tiles were not encoded: the round is, again (not replayed), as the zoom's last.
                guard replayed else { break }
                try tiles.discard(zoom: z)
                replayFailed = true
                continue
            }
            try checkNotThinned(zoom: z, overLimit: tally.over)
            if descent.reason == nil {
                descent.reason = tally.overBytes ? .droppedBySizeLimit : .droppedByFeatureLimit
            }
            // The round asked for fitting cut-offs (a zoom's first round always does), so its first over-limit
            // tile made the drop order.
            try tiles.discard(zoom: z)
            if descent.cutoff == Int32.max { descent.cutoff = selection.order?.end ?? 0 }
            rounds += 1
            // After 40 rounds, give up thinning: drop everything below max zoom rather than loop.
            descent.cutoff = rounds >= 40 ? 0 : min(descent.cutoff, tally.fit ?? descent.cutoff)
            selection.cutoff = descent.cutoff
        }
        try settle(&deferred, into: tiles, stats: &stats)
        settings.reuse?.endZoom(z, thinned: rounds > 0)
        stats[z] = tally.finished(reason: descent.reason, hasOrder: selection.order != nil)
    }

    /// `read` prepared (`PreparePass`); with reuse, its tiles prepared in an earlier round of the zoom are taken
    /// from `kept`, and those prepared now are kept there while they fit.
    private func prepared(
        _ read: ZoomStream.Batch, records: [RecordTable], highest: [[Int8]], zoom z: Int, kept: inout PreparedTiles
    ) throws -> EncodeBatch {
        guard settings.reuse != nil, z != settings.maxZoom else {
            return try prepare.prepare(read, records: records, highest: highest, zoom: z)
        }
        let (rest, positions, taken) = kept.split(read)
        let made = try prepare.prepare(rest, records: records, highest: highest, zoom: z)
        kept.keep(made)
        return PreparedTiles.assemble(
            made, positions: positions, kept: taken, sharedBorders: prepare.sharedBorders != nil,
            smallFeatures: prepare.smallFeatures != nil)
    }

    /// Encodes a batch's tiles at `selection`, adds what it found to `tally` (over-limit tiles, with their fitting
    /// cut-off when `fit`; features present and left out; tile and small-feature counts) and returns its tiles
    /// that have features. `makeOrder` gives the drop order when a tile is over a limit before there is one.
    /// The batch, all its tiles and their small-feature counts go to `record` when given (a round run beside the
    /// next zoom), else to the `TileReuse`.
    func encodeRound(
        _ batch: EncodeBatch, records: [RecordTable], selection: inout ZoomSelection, fit: Bool,
        into tally: inout ZoomTally, beside: DeferredRound? = nil,
        record: ((EncodeBatch, [EncodedTile], [[Int32: SmallFeatureReduction.Counts]]) -> Void)? = nil,
        makeOrder: () throws -> FeatureOrder
    ) throws -> [EncodedTile] {
        let (thin, encoder, current) = (thin, encoder, selection)
        let runs = batch.runs
        let outcomes = try workers.map(runs.count, largestFirst: { runs[$0].count }) { i throws(PipelineError) in
            try encoder.encode(
                batch, tile: i, plan: thin.plan(batch, tile: i, selection: current), records: records, compress: true)
        }
        let encoded = outcomes.map(\.tile)
        let over = encoded.indices.filter { thin.isOverLimit(encoded[$0]) }
        let limits = (bytes: settings.maxTileBytes, features: settings.maxTileFeatures)
        var answers = FirstRoundAnswers(fits: [:], selection: selection, records: records, limits: limits)
        tally.over += over.count
        tally.overBytes = tally.overBytes || over.contains { encoded[$0].bytes.count > settings.maxTileBytes }
        if fit, !over.isEmpty {
            // With no drop order yet nothing was left out, so the tiles are those the order keeps at this cut-off.
            if selection.order == nil { selection.order = try makeOrder() }
            let (selection, maxFeatures) = (selection, settings.maxTileFeatures)
            // The search of a few heavy tiles keeps one core busy: the zoom above's last round takes the other.
            beside?.start()
            // Fewer tiles than threads: each search tries its next probe on a spare core (`FitProbes`).
            let ahead = over.count < workers.threads
            let fits = try workers.map(over.count, largestFirst: { runs[over[$0]].count }) { k throws(PipelineError) in
                // The tile's features encoded once; each trial writes its subset of them (`TileFragments`).
                let fragments = try TileFragments(
                    batch, tile: over[k], plan: thin.plan(batch, tile: over[k], selection: selection),
                    records: records, encoder: encoder)
                return try thin.fittingCutoff(
                    batch, tile: over[k], compressed: encoded[over[k]].bytes.count, raw: outcomes[over[k]].raw,
                    selection: selection, ahead: ahead
                ) { trial throws(PipelineError) in
                    try encoder.trialSize(
                        batch, tile: over[k], plan: thin.plan(batch, tile: over[k], selection: trial),
                        records: records, maxFeatures: maxFeatures, fragments: fragments)
                }
            }
            if let m = fits.min() { tally.fit = min(tally.fit ?? m, m) }
            answers = FirstRoundAnswers(
                fits: Dictionary(uniqueKeysWithValues: zip(over, fits)), selection: selection, records: records,
                limits: limits)
        }
        tally.count(batch, selection: selection)
        tally.countCoalesced(outcomes.flatMap(\.coalesced), in: batch)
        tally.stats.sharedBorderFallbacks += batch.sharedBorderFallbacks
        var smallCounts: [[Int32: SmallFeatureReduction.Counts]] = []
        if let small = settings.smallFeatures {
            let perTile = try workers.map(batch.small.count) { i in
                small.decide(batch.small[i]) { l, f in current.keeps(layer: Int(l), feature: Int(f)) }.counts
            }
            for t in perTile { tally.add(t) }
            smallCounts = perTile
        }
        if let record {
            record(batch, encoded, smallCounts)
        } else {
            settings.reuse?.noteEncoded(batch, tiles: encoded, small: smallCounts, firstRound: answers)
        }
        let made = encoded.filter { $0.features > 0 }
        for t in made { tally.add(t) }
        return made
    }
}
