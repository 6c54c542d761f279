import GeometryAlgorithms
import KartpackCore
import VectorTile

/// The size of one tile piece counted inside its tile only (`0...extent` on both axes), so that the sizes of a
/// feature's pieces at one zoom add up to the feature's own size. A piece also holds the part of its feature that
/// lies in the tile's buffer, which the neighbouring tile's piece holds again: summed as they are, a feature that
/// crosses a tile edge looks larger by a band of up to twice the buffer (80 units at each side of a 4096 tile), so
/// `--thinning smallest` kept small squares that crossed an edge and dropped larger ones that did not.
enum PieceSize {
    /// Area in square tile units of the polygons of `commands` inside the tile (holes subtracted).
    static func polygonArea(_ commands: [UInt32], extent: Int) -> Double {
        let rect = ClipRect(minX: 0, minY: 0, maxX: Double(extent), maxY: Double(extent))
        var xy: [Double] = []
        var scratch: [Double] = []
        var area = 0.0
        for polygon in PolygonCommands.decode(commands) {
            for ring in polygon {
                xy.removeAll(keepingCapacity: true)
                for p in ring { xy.append(Double(p.x)); xy.append(Double(p.y)) }
                // Sutherland–Hodgman keeps the signed area of the ring's part inside the rectangle exactly.
                RectangleClipper.clip(ring: &xy, scratch: &scratch, to: rect)
                // Positive for MVT exteriors (y down), negative for holes.
                area += signedRingArea(xy[...])
            }
        }
        return area
    }

    /// Length in tile units of the lines of `commands` inside the tile.
    static func lineLength(_ commands: [UInt32], extent: Int) -> Double {
        let rect = ClipRect(minX: 0, minY: 0, maxX: Double(extent), maxY: Double(extent))
        var length = 0.0
        var x: Int32 = 0
        var y: Int32 = 0
        var i = 0
        while i < commands.count {
            let id = commands[i] & 7
            let count = Int(commands[i] >> 3)
            i += 1
            guard id == 1 || id == 2 else { continue }
            for _ in 0..<count where i + 1 < commands.count {
                let nx = x &+ ZigZag.decode(commands[i])
                let ny = y &+ ZigZag.decode(commands[i + 1])
                let a = Point2(x: Double(x), y: Double(y))
                let b = Point2(x: Double(nx), y: Double(ny))
                if id == 2, let (p, q) = RectangleClipper.clipSegment(a, b, rect) {
                    length += ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot()
                }
                (x, y) = (nx, ny)
                i += 2
            }
        }
        return length
    }
}
