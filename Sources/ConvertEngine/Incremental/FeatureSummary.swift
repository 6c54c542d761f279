import GeometryAlgorithms
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
        of(pieces, order: order, extent: extent, sized: sized(pieces, extent: extent))
    }

    /// The pieces at the highest zoom with any piece (what a feature's size is summed from) with each one's size.
    static func sized(_ pieces: [TilePiece], extent: Int) -> [(index: Int, size: Double)] {
        let sizeZoom = pieces.lazy.map(\.tile.z).max() ?? -1
        return pieces.indices.filter { pieces[$0].tile.z == sizeZoom }.map {
            ($0, FeatureMeasure.size(pieces[$0], extent: extent))
        }
    }

    /// `of(_:order:extent:)` with the sizes of the pieces at the highest zoom already made (`sized`).
    private static func of(
        _ pieces: [TilePiece], order: TileOrder, extent: Int, sized: [(index: Int, size: Double)]
    ) -> FeatureSummary {
        // The anchor: the first piece (in tile order, then as added) at the highest zoom with a vertex.
        var top = -1
        var first: (key: UInt64, index: Int, point: TilePoint)?
        for (i, p) in pieces.enumerated() {
            let z = p.tile.z
            guard z >= top, let point = p.geometry.firstPoint else { continue }
            let key = order.sortKey(p.tile) ?? UInt64.max
            if z > top || (key, i) < (first?.key ?? .max, first?.index ?? .max) {
                top = z
                first = (key, i, point)
            }
        }
        var s = FeatureSummary(top: Int8(top), anchor: FeatureAnchor(), size: 0)
        if let first {
            let tile = pieces[first.index].tile
            s.anchor = FeatureMeasure.anchor(tile: tile, first: first.point, extentBits: extent.trailingZeroBitCount)
        }
        // The size: those pieces' sizes summed in tile order (then as added), as the stream adds them.
        let ordered =
            sized.count < 2
            ? sized
            : sized.sorted {
                (order.sortKey(pieces[$0.index].tile) ?? .max, $0.index)
                    < (order.sortKey(pieces[$1.index].tile) ?? .max, $1.index)
            }
        for piece in ordered { s.size += piece.size }
        return s
    }

    /// Appends the summaries of `pieces` for every order in `orders` (a byte 0 when there are no pieces).
    static func put(_ pieces: [TilePiece], extent: Int, into out: inout [UInt8]) {
        guard !pieces.isEmpty else {
            out.append(0)
            return
        }
        out.append(1)
        let sized = sized(pieces, extent: extent)
        for order in orders {
            let s = of(pieces, order: order, extent: extent, sized: sized)
            PieceEncoder.varint(UInt64(Int(s.top) + 1), into: &out)
            PieceEncoder.varint(UInt64(s.anchor.x), into: &out)
            PieceEncoder.varint(UInt64(s.anchor.y), into: &out)
            let bits = s.size.bitPattern
            for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
        }
    }
}
