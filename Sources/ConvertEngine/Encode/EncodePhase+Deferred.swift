import KartpackCore

extension EncodePhase {
    /// A zoom's last round left for the next zoom (`DeferredRound`), with what its zoom needs to finish or to be
    /// encoded again from its start.
    struct Deferral {
        var round: DeferredRound
        var zoom: Int
        /// What the zoom above handed down, as the zoom started (its zoom is encoded again from here).
        var start: Descent
        /// Another round would follow one with a tile over a limit (else the round is the last, tiles over or not).
        var thinnable: Bool
        var reason: ReasonCode?
    }

    /// The zoom's last round, at `selection`, over its held batches: started beside the next zoom's cut-off search,
    /// or run when settled. With reuse (a zoom encoded whole, `TileReuse.encodesWhole`), `signed` holds each batch's
    /// piece digests: the round signs its tiles for tonight's index (`highest` as the zoom saw it) without touching
    /// the `TileReuse`, which the next zoom uses meanwhile; `settle` records them.
    func lastRound(
        _ batches: [EncodeBatch], signed: [HeldSignatures] = [], zoom z: Int, records: [RecordTable],
        selection: ZoomSelection, highest: [[Int8]], fit: Bool
    ) -> DeferredRound {
        let signs = settings.reuse != nil && signed.count == batches.count
        let (identities, workers) = (settings.identities, ParallelTiles(threads: settings.threads))
        return DeferredRound(zoom: z) {
            var (selection, tally) = (selection, ZoomTally())
            var made: [[EncodedTile]] = []
            var notes: [LastRoundNote] = []
            for (k, var batch) in batches.enumerated() {
                try thin.findNeighbours(&batch, selection: selection)
                var note: LastRoundNote?
                made.append(
                    try encodeRound(
                        batch, records: records, selection: &selection, fit: fit, into: &tally,
                        record: { b, tiles, small in
                            note = LastRoundNote(
                                tiles: tiles, signatures: [:], fallbacks: b.tileFallbacks, small: small)
                        }
                    ) {
                        throw PipelineError.tileEncoding(tile: "z\(z)", reason: "no drop order for a last round")
                    })
                if signs, var note {
                    note.signatures = try TileReuse.signatures(
                        signed[k], selection: selection, records: records, highest: highest, identities: identities,
                        workers: workers)
                    notes.append(note)
                }
            }
            return DeferredRound.Made(batches: made, tally: tally, notes: notes)
        }
    }

    /// Waits for the deferred round and adds its tiles and statistics; throws `DeferredRound.NotLast` (and keeps
    /// it in `deferred`) when it found a tile over a limit, so its zoom is encoded again.
    func settle(_ deferred: inout Deferral?, into tiles: EncodedTiles, stats: inout [Int: ZoomStats]) throws {
        guard let d = deferred else { return }
        let made = try d.round.wait()
        if d.thinnable, made.tally.over > 0 { throw DeferredRound.NotLast() }
        deferred = nil
        settings.reuse?.noteLastRound(zoom: d.zoom, made.notes)
        for batch in made.batches { try tiles.add(batch, zoom: d.zoom) }
        stats[d.zoom] = made.tally.finished(reason: d.reason, hasOrder: true)
    }
}
