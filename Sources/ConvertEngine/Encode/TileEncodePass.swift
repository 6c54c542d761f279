import KartpackCore
import TileArchive
import VectorTile

/// A finished tile: MVT bytes in the archive's tile compression.
package struct EncodedTile: Sendable {
    package var tile: TileCoordinate
    package var bytes: [UInt8]
    package var features: Int
}

/// The third encode pass: writes one tile of a batch as MVT, as its `TilePlan` says, with each feature's
/// properties at the tile's zoom; checks the MVT with the bounded decoder (formats.md §6) and compresses it as the
/// archive does.
///
/// Input: an `EncodeBatch`, a tile index in it and the tile's plan. Output: the `EncodedTile` (raw MVT while
/// `ThinPass` searches a cut-off) and the pieces coalescing merged into a neighbour.
package struct TileEncodePass: Sendable {
    /// Output layer names, by layer index.
    var layerNames: [String]
    package var extent: Int
    /// The archive's tile compression (the writer's declaration).
    package var compression: TileCompression

    /// One encoded tile and the batch indices of the pieces coalescing merged into a neighbour.
    package struct Outcome: Sendable {
        package var tile: EncodedTile
        var coalesced: [Int] = []
        /// The tile's MVT size before compression.
        package var raw = 0
    }

    /// One tile of a batch (`tile` in its runs) as `plan` says: raw MVT when `compress` is false, else checked with
    /// the decoder and compressed.
    package func encode(
        _ batch: EncodeBatch, tile index: Int, plan: TilePlan, records: [RecordTable], compress: Bool
    ) throws(PipelineError) -> Outcome {
        let run = batch.runs[index]
        var builders: [MVTLayerBuilder?] = Array(repeating: nil, count: layerNames.count)
        var count = 0
        try forEachWritten(batch, tile: index, plan: plan, records: records) { _, l, rec, type, commands, z in
            if builders[l] == nil { builders[l] = MVTLayerBuilder(name: layerNames[l], extent: extent) }
            let added = builders[l]?.addFeature(id: rec.id, type: type, geometry: commands) { tags in
                rec.addTags(atZoom: z, to: &tags)
            }
            if added == true { count += 1 }
        }
        let tile = batch.pieces[run.lowerBound].tile
        let layers = builders.compactMap { $0 }.filter { !$0.isEmpty }
        guard !layers.isEmpty else { return Outcome(tile: EncodedTile(tile: tile, bytes: [], features: 0)) }
        do throws(any Error) {
            let raw = try encodeTile(layers)
            guard compress else {
                return Outcome(tile: EncodedTile(tile: tile, bytes: raw, features: count), coalesced: plan.coalesced)
            }
            // Pre-publish check (formats.md §6): every tile parses as valid MVT 2.1 (commands, indices, winding,
            // UTF-8) with our own bounded decoder before it is written; `validate` checks what `decode` does
            // without building the decoded tile.
            try MVTDecoder().validate(raw)
            let bytes = try compression.compressWithLibdeflate(raw)
            return Outcome(
                tile: EncodedTile(tile: tile, bytes: bytes, features: count), coalesced: plan.coalesced,
                raw: raw.count)
        } catch {
            throw PipelineError.tileEncoding(tile: tile.description, reason: "\(error)")
        }
    }

    /// Calls `add` with each piece the tile (`tile` in the batch's runs) writes at `plan`, in run order: its batch
    /// index, layer, record, geometry type, MVT command stream (one buffer, reused) and zoom.
    func forEachWritten(
        _ batch: EncodeBatch, tile index: Int, plan: TilePlan, records: [RecordTable],
        _ add: (Int, Int, StoredRecord, MVTGeometryType, [UInt32], Int) -> Void
    ) throws(PipelineError) {
        // The pieces the tile writes, and only their records: a thinned tile leaves most of its pieces out.
        var written: [(index: Int, geometry: PieceGeometry)] = []
        for i in batch.runs[index] {
            if let geometry = plan.geometry(i, batch.pieces[i]) { written.append((i, geometry)) }
        }
        // A tile's pieces come in stable-key order (`PreparePass.stableOrder`); its records are read in (layer,
        // feature) order, so each reader loads a spilled chunk once.
        let stored = try Self.records(of: batch.pieces, written.map(\.index), records: records)
        // The one place pieces become MVT commands (`PieceGeometry.forEachCommand`), into one buffer per tile.
        var commands: [UInt32] = []
        for (k, (i, geometry)) in written.enumerated() {
            geometry.writeCommands(into: &commands)
            add(i, Int(batch.pieces[i].layer), stored[k], geometry.type, commands, batch.pieces[i].tile.z)
        }
    }

    /// The records of `pieces[run]`, by piece, read in (layer, feature) order.
    package static func records(
        of pieces: [TilePiece], _ run: Range<Int>, records: [RecordTable]
    ) throws(PipelineError) -> [StoredRecord] {
        try Self.records(of: pieces, Array(run), records: records)
    }

    /// The records of `pieces` at `indices`, in that order; read in (layer, feature) order when a table has
    /// spilled records (each spilled chunk is then read once), else in piece order (reading a held record costs the
    /// same in any order, and sorting the tile's pieces cost more than reading them).
    static func records(
        of pieces: [TilePiece], _ indices: [Int], records: [RecordTable]
    ) throws(PipelineError) -> [StoredRecord] {
        var readers = records.map { $0.reader() }
        guard records.contains(where: { $0.spilledBytes > 0 }) else {
            var out: [StoredRecord] = []
            out.reserveCapacity(indices.count)
            for i in indices {
                let (l, f) = (Int(pieces[i].layer), Int(pieces[i].feature))
                do { out.append(try readers[l].record(f)) } catch { throw .scratch(error) }
            }
            return out
        }
        // (layer, feature, position in `indices`), sorted by layer and feature.
        var byFeature = indices.enumerated().map { k, i in (pieces[i].layer, pieces[i].feature, k) }
        byFeature.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        var out = [StoredRecord?](repeating: nil, count: indices.count)
        for (l, f, k) in byFeature {
            do { out[k] = try readers[Int(l)].record(Int(f)) } catch { throw .scratch(error) }
        }
        return out.map { $0! }
    }

    /// The compressed size of one tile as `plan` says, or nil when it has more than `maxFeatures` features: a
    /// trial of `ThinPass.fittingCutoff` (not checked with the decoder). Written from `fragments` when they hold
    /// what the plan writes (the same bytes), else encoded in full.
    func trialSize(
        _ batch: EncodeBatch, tile index: Int, plan: TilePlan, records: [RecordTable], maxFeatures: Int,
        fragments: TileFragments? = nil
    ) throws(PipelineError) -> Int? {
        let tile = batch.pieces[batch.runs[index].lowerBound].tile
        do throws(any Error) {
            let raw: (bytes: [UInt8], features: Int)
            if let made = try fragments?.encode(at: plan) {
                raw = made
            } else {
                let t = try encode(batch, tile: index, plan: plan, records: records, compress: false).tile
                raw = (t.bytes, t.features)
            }
            guard raw.features <= maxFeatures else { return nil }
            return try compression.compressWithLibdeflate(raw.bytes).count
        } catch let error as PipelineError {
            throw error
        } catch {
            throw .tileEncoding(tile: tile.description, reason: "\(error)")
        }
    }
}
