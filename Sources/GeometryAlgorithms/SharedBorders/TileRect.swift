/// An axis-aligned rectangle in integer tile coordinates, edges included: e.g. the buffered clip rectangle of a
/// tile, −buffer…extent+buffer on both axes.
public struct TileRect: Sendable, Hashable, CustomStringConvertible {
    /// Smallest x.
    public var minX: Int32
    /// Smallest y.
    public var minY: Int32
    /// Largest x.
    public var maxX: Int32
    /// Largest y.
    public var maxY: Int32

    /// Creates a rectangle from its edges (`minX ≤ maxX`, `minY ≤ maxY`).
    public init(minX: Int32, minY: Int32, maxX: Int32, maxY: Int32) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The clip rectangle of a tile with `extent` units and a `buffer` in tile units, rounded to the grid with the
    /// quantizer's rule (so the points a clip to the buffered tile puts on its edges lie exactly on these edges),
    /// and clamped to the `Int32` range (NaN gives 0).
    public static func bufferedTile(extent: Int, buffer: Double) -> TileRect {
        let limit = Double(Int32.max)
        func snap(_ v: Double) -> Int32 {
            v.isNaN ? 0 : Int32(min(limit, max(-limit, v.rounded(.toNearestOrAwayFromZero))))
        }
        let lo = snap(-buffer), hi = snap(Double(extent) + buffer)
        return TileRect(minX: lo, minY: lo, maxX: hi, maxY: hi)
    }

    /// True when `p` lies on one of the four edges.
    public func isOnBoundary(_ p: TilePoint) -> Bool {
        let inX = minX <= p.x && p.x <= maxX
        let inY = minY <= p.y && p.y <= maxY
        return (inY && (p.x == minX || p.x == maxX)) || (inX && (p.y == minY || p.y == maxY))
    }

    /// True when `p` is one of the four corners.
    public func isCorner(_ p: TilePoint) -> Bool { (p.x == minX || p.x == maxX) && (p.y == minY || p.y == maxY) }

    /// True when the segment `p`–`q` runs along one of the edges (both ends on the same edge line).
    public func runsAlongBoundary(_ p: TilePoint, _ q: TilePoint) -> Bool {
        guard isOnBoundary(p), isOnBoundary(q) else { return false }
        return (p.x == q.x && (p.x == minX || p.x == maxX)) || (p.y == q.y && (p.y == minY || p.y == maxY))
    }

    /// `[minX,minY … maxX,maxY]`.
    public var description: String { "[\(minX),\(minY) … \(maxX),\(maxY)]" }
}

extension TilePoint {
    /// Orders by x, then y: the canonical order that makes shared-border simplification independent of the order
    /// of features and rings.
    @inline(__always)
    static func precedes(_ a: TilePoint, _ b: TilePoint) -> Bool { a.x != b.x ? a.x < b.x : a.y < b.y }
}
