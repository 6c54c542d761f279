import KartpackCore

/// What makes one tile's bytes, as a digest: two tiles with the same signature (under the same `EncodeSettings`,
/// `TileReuse.settingsDigest`) are encoded to the same bytes, with the same statistics.
///
/// The encode passes read, for a tile at zoom z: its pieces in stable-key order (`PreparePass.stableOrder`) — each
/// piece's layer, geometry type and MVT commands; its feature's rank, id and attributes at z (class and match flags
/// included); whether the zoom keeps the feature (`ZoomSelection.keeps`: the drop order's cut-off, `max-points`),
/// whether `max-points` left it out, whether z is its highest zoom (small features), which of the tile's pieces
/// share its identity class (coalescing) — and the tile's address. The signature hashes exactly these, in that
/// order, so a feature added, removed, moved, re-attributed or re-classified in a tile, or a cut-off that keeps
/// other features of it, gives another signature; a feature that only moved in the record order, or a drop order
/// that shifted without changing what the tile keeps, does not.
enum TileSignature {
    /// The signature of `pieces[run]` (one tile, merged in (layer, feature) order) at `selection`; `highest` holds
    /// per layer and feature the highest zoom it had pieces at above this one (-1: none).
    static func of(
        _ run: Range<Int>, pieces: [TilePiece], records: [RecordTable], selection: ZoomSelection, highest: [[Int8]],
        identities: [[Int32]]
    ) throws(PipelineError) -> TileDigest {
        var h = TileHasher()
        let tile = pieces[run.lowerBound].tile
        h.add(tile.z)
        h.add(tile.x)
        h.add(tile.y)
        let z = tile.z
        let stored = try TileEncodePass.records(of: pieces, run, records: records)
        var classes: [Int64: Int] = [:]
        for i in PreparePass.stableOrder(run, pieces: pieces, records: records) {
            let p = pieces[i]
            let (l, f) = (Int(p.layer), Int(p.feature))
            let record = stored[i - run.lowerBound]
            h.add(l)
            h.add(record.rank)
            h.add(record.id ?? 0)
            h.add(record.id == nil ? 0 : 1)
            var flags = selection.keeps(layer: l, feature: f) ? 1 : 0
            if selection.isExcluded(layer: l, feature: f) { flags |= 2 }
            if highest[l][f] <= z { flags |= 4 }
            h.add(flags)
            if l < identities.count, !identities[l].isEmpty {
                // Coalescing only asks whether two pieces of the tile have the same class: hashed as the class's
                // first piece in the tile, since the class numbers follow the record order.
                let key = Int64(l) << 32 | Int64(UInt32(bitPattern: identities[l][f]))
                let first = classes[key, default: classes.count]
                classes[key] = first
                h.add(first)
            } else {
                h.add(-1)
            }
            record.addProperties(atZoom: z, to: &h)
            h.add(Int(p.type.rawValue))
            // The piece's MVT command words, two to a value, as when pieces were held as commands (same digests).
            h.add(p.geometry.commandCount)
            var pending: UInt64?
            p.geometry.forEachCommand { w in
                if let low = pending {
                    h.add(low | UInt64(w) << 32)
                    pending = nil
                } else {
                    pending = UInt64(w)
                }
            }
            if let low = pending { h.add(low) }
        }
        return h.finish()
    }
}
