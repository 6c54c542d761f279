public import KartpackCore

/// The outcome of `RectangleClipper.clipPolygons`.
public enum PolygonClip: Sendable {
    /// No area of the polygons lies inside the rectangle.
    case empty
    /// The part inside: a polygon or multipolygon, rings closed, exteriors counter-clockwise and holes clockwise
    /// (y up).
    case polygons(Geometry)
    /// The rings' crossings of the rectangle's boundary do not pair up (the input was not a valid polygon, or
    /// rounding made two crossings swap): clip it another way.
    case inconsistent
    /// The cancellation flag was set before the clip finished.
    case cancelled
}

extension RectangleClipper {
    /// The part of valid polygons (a polygon or multipolygon, rings closed, any orientation) inside the closed
    /// rectangle `r`, in time O(n + k log k) for n vertices and k crossings of the rectangle's boundary.
    ///
    /// Each ring is walked once (oriented so that its polygon's interior is on its left); the parts inside the
    /// rectangle become chains from an entry point to an exit point on the boundary, rings wholly inside stay
    /// closed. The chains' ends are sorted once along the boundary (counter-clockwise, ties by the angle at which
    /// they leave the boundary) and each exit is joined to the next entry along the boundary, taking the corners
    /// on the way. A ring that touches itself where crossings meet is split there (an inverted hole becomes a
    /// hole), holes wholly inside go to the piece holding them, and a polygon whose rings all miss the
    /// rectangle's interior yields the whole rectangle when it covers the rectangle's centre. Pieces without area
    /// are dropped. Holes that cross the boundary become part of the exterior, so the output is valid for valid
    /// input; one limit remains: a hole and an exterior that touch at a point *inside* the rectangle, joined into
    /// one ring by the clip, keep the touch unless it is a vertex of both.
    ///
    /// Placing the holes that lie wholly inside when a polygon leaves several pieces costs a point-in-ring test
    /// per hole and candidate piece (bounding boxes first). `cancellation` is polled every few thousand steps.
    ///
    /// `boxes`, when given, holds the bounding box of every polygon's rings (`polygonBoxes(_:)`): polygons whose
    /// box lies strictly outside `r` are skipped without a walk (they leave nothing either way), which keeps
    /// clipping a piece made of many small polygons — a dense star's spikes cut by the parent tile — in time
    /// proportional to the polygons near `r`, not to all of them.
    public static func clipPolygons(
        _ g: Geometry, to r: ClipRect, boxes: [Bounds]? = nil, cancellation: CancellationFlag = .process
    ) -> PolygonClip {
        guard g.kind.family == .polygon, !r.isEmpty else { return .empty }
        var out: [[[Point2]]] = []
        var cutter = PolygonCutter(rect: r, cancellation: cancellation)
        for j in 0..<g.polygonCount {
            if let boxes, boxes.count == g.polygonCount {
                let b = boxes[j]
                if b.maxX < r.minX || b.minX > r.maxX || b.maxY < r.minY || b.minY > r.maxY { continue }
            }
            var rings: [[Point2]] = []
            for part in g.partRange(ofPolygon: j) {
                let range = g.pointRange(ofPart: part)
                var ring: [Point2] = []
                ring.reserveCapacity(range.count)
                for i in range {
                    let p = Point2(x: g.xy[2 * i], y: g.xy[2 * i + 1])
                    if ring.last != p { ring.append(p) }
                }
                if ring.count > 1, ring.first == ring.last { ring.removeLast() }
                rings.append(ring)
            }
            switch cutter.cut(rings) {
            case .pieces(let pieces): out += pieces
            case .inconsistent: return .inconsistent
            case .cancelled: return .cancelled
            }
        }
        guard !out.isEmpty else { return .empty }
        return .polygons(
            Geometry.polygons(
                out.map { polygon in
                    polygon.map { ring in
                        var xy: [Double] = []
                        xy.reserveCapacity(2 * ring.count + 2)
                        for p in ring { xy += [p.x, p.y] }
                        xy += [ring[0].x, ring[0].y]
                        return xy
                    }
                }))
    }

    /// The bounding box of each polygon of `g` (all its rings), for `clipPolygons(_:to:boxes:cancellation:)`.
    public static func polygonBoxes(_ g: Geometry) -> [Bounds] {
        var boxes: [Bounds] = []
        boxes.reserveCapacity(g.polygonCount)
        g.xy.withUnsafeBufferPointer { xy in
            for j in 0..<g.polygonCount {
                let parts = g.partRange(ofPolygon: j)
                let start = g.pointRange(ofPart: parts.lowerBound).lowerBound
                let end = g.pointRange(ofPart: parts.upperBound - 1).upperBound
                var b = Bounds.empty
                for i in start..<end { b.include(x: xy[2 * i], y: xy[2 * i + 1]) }
                boxes.append(b)
            }
        }
        return boxes
    }

    /// Signed area (shoelace, relative to the first point for precision) of an open ring.
    static func signedArea(_ ring: [Point2]) -> Double {
        guard ring.count >= 3 else { return 0 }
        let o = ring[0]
        var s = 0.0
        for i in 1..<(ring.count - 1) {
            let a = ring[i]
            let b = ring[i + 1]
            s += (a.x - o.x) * (b.y - o.y) - (b.x - o.x) * (a.y - o.y)
        }
        return s / 2
    }

    /// Where `p` lies relative to the open ring (crossing number; on an edge is `.boundary`).
    static func locate(_ p: Point2, in ring: [Point2]) -> RingValidator.Location {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[j]
            let b = ring[i]
            j = i
            if a == p || b == p { return .boundary }
            if (a.y > p.y) != (b.y > p.y) {
                let cross = (b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y)
                if cross == 0 { return .boundary }
                // Upward edges with p on their left, downward ones with p on their right, cross the ray.
                if (cross > 0) == (b.y > a.y) { inside.toggle() }
            } else if a.y == p.y, b.y == p.y, min(a.x, b.x) <= p.x, p.x <= max(a.x, b.x) {
                return .boundary
            }
        }
        return inside ? .inside : .outside
    }
}
