import TileArchive

/// The pieces of a run in archive order, and where each tile's pieces are.
struct TileRuns: Sendable {
    /// Sorted by (tile key, output layer, feature).
    var pieces: [PlacedPiece]
    /// Per zoom, the range of `pieces` of each tile, in archive order.
    var byZoom: [Int: [Range<Int>]]
}

/// Phase 3 of `convert`: tile pieces into the archive writer's declared tile order (Hilbert TileID for PMTiles,
/// z/x/y for MBTiles), grouped into one run per tile. Both orders are zoom-major, so each zoom's tiles are one
/// stretch.
struct OrderPhase {
    let order: TileOrder

    func run(_ pieces: [PlacedPiece]) -> TileRuns {
        var pieces = pieces
        for i in pieces.indices {
            let t = pieces[i].piece.tile
            pieces[i].key = order.sortKey(t) ?? UInt64.max
        }
        pieces.sort { ($0.key, $0.layer, $0.feature) < ($1.key, $1.layer, $1.feature) }
        var byZoom: [Int: [Range<Int>]] = [:]
        var start = 0
        while start < pieces.count {
            var end = start + 1
            while end < pieces.count && pieces[end].key == pieces[start].key { end += 1 }
            byZoom[pieces[start].piece.tile.z, default: []].append(start..<end)
            start = end
        }
        return TileRuns(pieces: pieces, byZoom: byZoom)
    }
}
