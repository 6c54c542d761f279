import KartpackCore

extension TiledLayers {
    /// After the feature phase, once the build knows whether it copies last night's tiles (`copying`: the tile
    /// reuse is active and nothing spans tiles — no `max-points` or coalescing): marks dirty the
    /// tiles of last night's features no feature of tonight's took (`LazyPieces.unclaimed`) and of the lazy
    /// features whose `unchanged` was taken back (`ThinningTraits.unmarkSharedRanks`), then reads back from the
    /// store the pieces of lazy features in dirty tiles. Without `copying`, or when what is gone cannot be known
    /// (a record missing or damaged), every piece left in the store is read back and nil returned. Returns the
    /// lazy features (for the drop order's and the highest zooms' presets) with the dirty tiles.
    mutating func settleLazyPieces(copying: Bool, store reuse: PieceReuse) throws -> LazyPieces? {
        guard var state = lazy else { return nil }
        lazy = nil
        if state.checking, let why = state.broken { throw TileReuseError.lazyCheckFailed(why) }
        var readAll = !copying || state.readAllBecause != nil
        state.hasLabels = outputs.contains { $0.name.hasSuffix("_labels") && !$0.records.isEmpty }
        if !readAll, let entries = state.unclaimed {
            for entry in entries {
                guard let record = reuse.storedRecord(entry: entry), state.noteGone(record: record) else {
                    readAll = true
                    break
                }
            }
        } else {
            readAll = true
        }
        func record(_ f: LazyPieces.Feature) throws -> [UInt8] {
            guard let r = reuse.storedRecord(entry: Int(f.entry)) else { throw TileReuseError.storeChanged }
            return r
        }
        // Every zoom's blocks left in the record and located; only the lazy zooms' are decoded and added.
        let everyZoom = ZoomSet(0..<32)
        for (i, f) in state.features.enumerated() where readAll || !isUnchanged(f) {
            let r = try record(f)
            guard let decoded = PieceRecord.decode(r, from: 8, leaving: everyZoom) else {
                throw TileReuseError.storeChanged
            }
            if !readAll { state.noteGone(record: r, decoded: decoded) }
            guard !f.decoded else { continue }
            try add(r, decoded.left.blocks.filter { state.zooms.contains(Int($0.zoom)) }, of: f, tiles: nil)
            state.markRead(i)
        }
        if readAll { return nil }
        for f in state.features where !f.decoded {
            // The lazy zooms where the feature's bounds reach a dirty tile.
            var needs = ZoomSet()
            for z in state.zooms.zooms where z >= Int(f.low) && z <= max(Int(f.high), Int(f.labelTop)) {
                guard let dirty = state.dirty[z], !dirty.isEmpty,
                    let range = LazyPieces.tiles(f, zoom: z, parameters: state.parameters),
                    LazyPieces.meets(range, dirty)
                else { continue }
                needs.insert(z)
            }
            guard !needs.isEmpty else { continue }
            let r = try record(f)
            guard let decoded = PieceRecord.decode(r, from: 8, leaving: everyZoom) else {
                throw TileReuseError.storeChanged
            }
            try add(r, decoded.left.blocks.filter { needs.contains(Int($0.zoom)) }, of: f, tiles: state.dirty)
        }
        return state
    }

    /// Whether lazy feature `f` (and its label point) is still one last night's package had as it is.
    private func isUnchanged(_ f: LazyPieces.Feature) -> Bool {
        let main = outputs[Int(f.layer)].traits.unchanged
        guard Int(f.feature) < main.count, main[Int(f.feature)] else { return false }
        guard f.labelFeature >= 0 else { return true }
        let labels = outputs[Int(f.labelLayer)].traits.unchanged
        return Int(f.labelFeature) < labels.count && labels[Int(f.labelFeature)]
    }

    /// Adds the pieces of `blocks` of record `r` of lazy feature `f` at the lazy zooms (only those in `tiles`, per
    /// zoom, when given).
    private mutating func add(
        _ r: [UInt8], _ blocks: [StoredParts.Block], of f: LazyPieces.Feature, tiles: [Int: Set<TileCoordinate>]?
    ) throws {
        for block in blocks {
            let z = Int(block.zoom)
            guard tiles.map({ $0[z] != nil }) ?? true, block.label == false || f.labelFeature >= 0 else { continue }
            guard let decoded = PieceRecord.pieces(of: block, in: r) else { throw TileReuseError.storeChanged }
            let (layer, feature) =
                block.label ? (Int32(f.labelLayer), f.labelFeature) : (Int32(f.layer), f.feature)
            for var p in decoded {
                if let tiles, tiles[z]?.contains(p.tile) != true { continue }
                (p.layer, p.feature) = (layer, feature)
                pieces.append(p)
            }
        }
        // Read back after the feature phase, they count against the memory budget as its pieces do.
        try spillIfOverBudget()
    }
}
