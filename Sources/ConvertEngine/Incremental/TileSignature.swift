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
///
/// It is made in two steps (tile index format 4): each piece's digest of what does not depend on the selection
/// (`SignedPiece`, `parts`), then the tile's address and, per piece in stable order, that digest with the
/// piece's flags at the selection (kept, left out by `max-points`, at its highest zoom; `combined`). A thinned
/// zoom's later rounds keep its pieces' digests (`PartsCache`, `HeldSignatures`) and only combine them again at their
/// own cut-off: each piece's record and commands are hashed once per night at that zoom, not once per round.
enum TileSignature {
    /// The signature of `pieces[run]` (one tile, merged in (layer, feature) order) at `selection`; `highest` holds
    /// per layer and feature the highest zoom it had pieces at above this one (-1: none).
    static func of(
        _ run: Range<Int>, pieces: [TilePiece], records: [RecordTable], selection: ZoomSelection, highest: [[Int8]],
        identities: [[Int32]]
    ) throws(PipelineError) -> TileDigest {
        let signed = try parts(run, pieces: pieces, records: records, identities: identities)
        return combined(pieces[run.lowerBound].tile, signed, selection: selection, highest: highest)
    }

    /// The selection-free digests of the pieces of `pieces[run]` (one tile), in stable order.
    static func parts(
        _ run: Range<Int>, pieces: [TilePiece], records: [RecordTable], identities: [[Int32]]
    ) throws(PipelineError) -> [SignedPiece] {
        let z = pieces[run.lowerBound].tile.z
        let stored = try TileEncodePass.records(of: pieces, run, records: records)
        var classes: [Int64: Int] = [:]
        var out: [SignedPiece] = []
        out.reserveCapacity(run.count)
        for i in PreparePass.stableOrder(run, pieces: pieces, records: records) {
            let p = pieces[i]
            let (l, f) = (Int(p.layer), Int(p.feature))
            let record = stored[i - run.lowerBound]
            var h = TileHasher()
            h.add(l)
            h.add(record.rank)
            h.add(record.id ?? 0)
            h.add(record.id == nil ? 0 : 1)
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
            // The piece's MVT command words, two to a value.
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
            out.append(SignedPiece(layer: p.layer, feature: p.feature, digest: h.finish()))
        }
        return out
    }

    /// The signature of tile `tile`, made of `signed` (`parts`), at `selection`.
    static func combined(
        _ tile: TileCoordinate, _ signed: [SignedPiece], selection: ZoomSelection, highest: [[Int8]]
    ) -> TileDigest {
        var h = TileHasher()
        h.add(tile.z)
        h.add(tile.x)
        h.add(tile.y)
        h.add(signed.count)
        for s in signed {
            let (l, f) = (Int(s.layer), Int(s.feature))
            var flags = selection.keeps(layer: l, feature: f) ? 1 : 0
            if selection.isExcluded(layer: l, feature: f) { flags |= 2 }
            if highest[l][f] <= tile.z { flags |= 4 }
            h.add(s.digest.high)
            h.add(s.digest.low)
            h.add(flags)
        }
        return h.finish()
    }
}

/// One piece of a tile as its signature sees it apart from the selection (`TileSignature.parts`): its layer and
/// feature (to ask the selection about) and the digest of its layer, record at the zoom, identity class in the
/// tile, type and commands.
struct SignedPiece: Sendable {
    var layer: Int32
    var feature: Int32
    var digest: TileDigest
}
