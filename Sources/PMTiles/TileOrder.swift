import KartpackCore

/// The order in which an archive writer requires its tiles.
public enum TileOrder: String, Sendable, Hashable {
    /// Ascending PMTiles TileID (zoom, then Hilbert distance): what `PMTilesWriter` needs.
    case hilbert
    /// Ascending zoom, then column, then XYZ row: what `MBTilesWriter` needs.
    case zxy

    /// True when `a` must come strictly before `b` in this order. Invalid keys compare by `TileCoordinate.<`.
    public func precedes(_ a: TileCoordinate, _ b: TileCoordinate) -> Bool {
        switch self {
        case .zxy:
            return a < b
        case .hilbert:
            guard let ia = PMTilesTileID.id(a), let ib = PMTilesTileID.id(b) else { return a < b }
            return ia < ib
        }
    }

    /// A 64-bit key that sorts like this order (the PMTiles TileID, or zoom/column/row packed for `.zxy`),
    /// or nil for an invalid tile. `.zxy` keys pack z in 5 bits and x, y in 29 bits each, so zooms above 29 are nil.
    public func sortKey(_ key: TileCoordinate) -> UInt64? {
        guard key.isValid else { return nil }
        switch self {
        case .hilbert:
            return PMTilesTileID.id(key)
        case .zxy:
            guard key.z <= 29 else { return nil }
            return UInt64(key.z) << 58 | UInt64(key.x) << 29 | UInt64(key.y)
        }
    }
}
