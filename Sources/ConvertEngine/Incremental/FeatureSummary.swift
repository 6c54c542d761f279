import KartpackCore
import TileArchive

/// What the drop order (`FeatureMeasure`) takes of one feature's pieces, measured from those pieces alone: its
/// highest zoom with a vertex (-1: none), its anchor there and its size (`smallest`). The piece store keeps it for
/// both tile orders (`PieceRecord`), so a night that leaves a feature's pieces in the store (`LazyPieces`) still
/// gives the drop order what observing them would have.
struct FeatureSummary: Equatable, Sendable {
    var top: Int8
    var anchor: FeatureAnchor
    var size: Double

    /// The tile orders a record keeps a summary for, in its order.
    static let orders: [TileOrder] = [.hilbert, .zxy]

    /// The measure of `pieces` (one feature's, in the order it added them) as `FeatureMeasure.observe` makes it
    /// from the archive's stream: pieces in `order`'s tile order, a tile's in the order added. Only the pieces from
    /// the highest zoom with a vertex up count (the stream is observed from the max zoom down).
    static func of(_ pieces: [TilePiece], order: TileOrder, extent: Int) -> FeatureSummary {
        let top = pieces.lazy.filter { $0.geometry.firstPoint != nil }.map(\.tile.z).max() ?? 0
        let keyed = pieces.indices.filter { pieces[$0].tile.z >= top }.map {
            (key: order.sortKey(pieces[$0].tile) ?? UInt64.max, index: $0)
        }.sorted { ($0.key, $0.index) < ($1.key, $1.index) }
        var measure = FeatureMeasure(counts: [1], extent: extent, withSizes: true)
        measure.observe(
            keyed.map { k in
                var p = pieces[k.index]
                (p.layer, p.feature) = (0, 0)
                return p
            })
        return measure.summary(layer: 0, feature: 0)
    }

    /// Appends the summaries of `pieces` for every order in `orders` (a byte 0 when there are no pieces).
    static func put(_ pieces: [TilePiece], extent: Int, into out: inout [UInt8]) {
        guard !pieces.isEmpty else {
            out.append(0)
            return
        }
        out.append(1)
        for order in orders {
            let s = of(pieces, order: order, extent: extent)
            PieceEncoder.varint(UInt64(Int(s.top) + 1), into: &out)
            PieceEncoder.varint(UInt64(s.anchor.x), into: &out)
            PieceEncoder.varint(UInt64(s.anchor.y), into: &out)
            let bits = s.size.bitPattern
            for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
        }
    }
}
