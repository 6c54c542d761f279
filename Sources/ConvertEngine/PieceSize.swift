import GeometryAlgorithms
import KartpackCore
import VectorTile

/// The size of one tile piece counted inside its tile only (`0...extent` on both axes), so that the sizes of a
/// feature's pieces at one zoom add up to the feature's own size. A piece also holds the part of its feature that
/// lies in the tile's buffer, which the neighbouring tile's piece holds again: summed as they are, a feature that
/// crosses a tile edge looks larger by a band of up to twice the buffer (80 units at each side of a 4096 tile), so
/// `--thinning smallest` kept small squares that crossed an edge and dropped larger ones that did not.
package enum PieceSize {
    /// Area in square tile units of the polygons of `geometry` inside the tile (holes subtracted).
    static func polygonArea(_ geometry: PieceGeometry, extent: Int) -> Double {
        guard case .polygons(let parts) = geometry else { return 0 }
        let rect = Bounds(minX: 0, minY: 0, maxX: Double(extent), maxY: Double(extent))
        var xy: [Double] = []
        var scratch: [Double] = []
        var area = 0.0
        parts.forEach { ring, _ in
            xy.removeAll(keepingCapacity: true)
            for p in ring { xy.append(Double(p.x)); xy.append(Double(p.y)) }
            // Sutherland–Hodgman keeps the signed area of the ring's part inside the rectangle exactly.
            RectangleClipper.clip(ring: &xy, scratch: &scratch, to: rect)
            // Positive for MVT exteriors (y down), negative for holes.
            area += signedRingArea(xy[...])
        }
        return area
    }

    /// Length in tile units of the lines of `geometry` inside the tile.
    static func lineLength(_ geometry: PieceGeometry, extent: Int) -> Double {
        guard case .lines(let parts) = geometry else { return 0 }
        let rect = Bounds(minX: 0, minY: 0, maxX: Double(extent), maxY: Double(extent))
        var length = 0.0
        parts.forEach { part, _ in
            for (a, b) in zip(part, part.dropFirst()) {
                let p0 = Point2(x: Double(a.x), y: Double(a.y))
                let p1 = Point2(x: Double(b.x), y: Double(b.y))
                if let (p, q) = RectangleClipper.clipSegment(p0, p1, rect) {
                    length += ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot()
                }
            }
        }
        return length
    }
}
