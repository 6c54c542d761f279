import VectorTile

/// Which features a zoom writes: every feature at its highest zoom (the package's or its layer's max zoom), else
/// those with `position < cutoff` in the drop order (`FeatureOrder`) not left out by `max-points`. `ThinPass`
/// lowers the cut-off; with no drop order yet every feature is kept.
package struct ZoomSelection: Sendable {
    package var zoom: Int
    var cutoff: Int32
    package var order: FeatureOrder?
    /// Per layer, per feature: left out by `max-points` at this zoom (empty when no layer has a limit).
    var excluded: [[Bool]] = []

    package func keeps(layer l: Int, feature f: Int) -> Bool {
        guard let order else { return true }
        if Int(order.topZoom[l][f]) <= zoom { return true }
        if !excluded.isEmpty, !excluded[l].isEmpty, excluded[l][f] { return false }
        return order.position[l][f] < cutoff
    }

    /// True when the selection keeps every feature: no cut-off yet, no `max-points` exclusions.
    var keepsEvery: Bool { (order == nil || cutoff == Int32.max) && excluded.allSatisfy(\.isEmpty) }

    /// True when `max-points` leaves the feature out at this zoom.
    func isExcluded(layer l: Int, feature f: Int) -> Bool {
        !excluded.isEmpty && !excluded[l].isEmpty && excluded[l][f]
    }
}

/// What becomes of each piece of one tile at a selection (`ThinPass.plan`), for `TileEncodePass`: left out, kept
/// as it is, drawn as a small-feature square or dash, or kept with the left-out neighbours it took (`--coalesce`).
package struct TilePlan: Sendable {
    var selection: ZoomSelection
    /// Small pieces (batch index) replaced by squares or dashes or left out (nil).
    var replaced: [Int: PieceGeometry?] = [:]
    /// Kept pieces (batch index) that took left-out neighbours: their merged geometry.
    var merged: [Int: PieceGeometry] = [:]
    /// The batch indices of the pieces merged into a neighbour.
    var coalesced: [Int] = []

    /// The geometry piece `i` (`p`) of the batch is written with, or nil when the tile leaves it out. Dust (a small
    /// piece that is not drawn as a square) is never written as such.
    package func geometry(_ i: Int, _ p: TilePiece) -> PieceGeometry? {
        guard selection.keeps(layer: Int(p.layer), feature: Int(p.feature)) else { return nil }
        // Most plans merge and replace nothing: no lookups then.
        var geometry = merged.isEmpty ? p.geometry : merged[i] ?? p.geometry
        if !replaced.isEmpty, let r = replaced[i] {
            guard let r else { return nil }
            geometry = r
        }
        // Dust is drawn only by small-feature reduction; a piece its late grid repair left empty, never.
        guard geometry.type != .unknown, !geometry.isEmpty else { return nil }
        return geometry
    }
}
