import VectorTile

/// One tile's features encoded once (`MVTLayerFragments`, per output layer) at the selection its cut-off search
/// starts from, for the search's trials (`ThinPass.fittingCutoff`): a trial at a lower cut-off keeps a subset of
/// them, and writing that subset from the fragments reads no record and interns no value again. The bytes are
/// those `TileEncodePass.encode` writes at the trial's plan (`EncodePassTests`).
///
/// A plan that draws a piece otherwise than the fragments hold it (a small-feature square, a coalesced merge) or
/// keeps a piece the starting selection did not is not written from them (`encode` returns nil): the trial then
/// encodes the tile in full.
struct TileFragments: Sendable {
    /// Per output layer, the features written at the starting selection.
    private var layers: [MVTLayerFragments]
    /// Per piece of the tile's run, in order: its layer and feature, and its feature number in its layer's
    /// fragments (`written`), `notWritten` when its geometry writes nothing, `notKept` when the starting selection
    /// left it out.
    private var pieces: [(layer: Int32, feature: Int32, number: Int32)] = []
    private static let notWritten: Int32 = -1
    private static let notKept: Int32 = -2

    /// The features `encoder` writes of tile `index` of `batch` at `plan`; nil when the plan draws a piece as a
    /// square or merges pieces (the fragments would be those of that plan only).
    init?(
        _ batch: EncodeBatch, tile index: Int, plan: TilePlan, records: [RecordTable], encoder: TileEncodePass
    ) throws(PipelineError) {
        guard plan.replaced.isEmpty, plan.merged.isEmpty else { return nil }
        layers = encoder.layerNames.map { MVTLayerFragments(name: $0, extent: encoder.extent) }
        let run = batch.runs[index]
        for i in run {
            let p = batch.pieces[i]
            let kept = plan.selection.keeps(layer: Int(p.layer), feature: Int(p.feature))
            pieces.append((p.layer, p.feature, kept ? Self.notWritten : Self.notKept))
        }
        var layers = layers
        var pieces = pieces
        try encoder.forEachWritten(batch, tile: index, plan: plan, records: records) { i, l, rec, type, commands, z in
            let number = Int32(truncatingIfNeeded: layers[l].count)
            let added = layers[l].addFeature(id: rec.id, type: type, geometry: commands) { tags in
                rec.addTags(atZoom: z, to: &tags)
            }
            if added { pieces[i - run.lowerBound].number = number }
        }
        self.layers = layers
        self.pieces = pieces
    }

    /// The tile's raw MVT at `plan` (a lower cut-off than the starting selection's) and its feature count, or nil
    /// when the plan writes a piece otherwise than the fragments hold it.
    func encode(at plan: TilePlan) throws(MVTEncodeError) -> (bytes: [UInt8], features: Int)? {
        guard plan.replaced.isEmpty, plan.merged.isEmpty else { return nil }
        var kept = layers.map { _ in [Int]() }
        var count = 0
        for p in pieces where plan.selection.keeps(layer: Int(p.layer), feature: Int(p.feature)) {
            guard p.number != Self.notKept else { return nil }
            guard p.number >= 0 else { continue }
            kept[Int(p.layer)].append(Int(p.number))
            count += 1
        }
        return (try encodeTile(layers, keeping: kept), count)
    }
}
