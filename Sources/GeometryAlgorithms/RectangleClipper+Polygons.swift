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
        _ g: Geometry, to r: Bounds, boxes: [Bounds]? = nil, cancellation: CancellationFlag = .process
    ) -> PolygonClip {
        guard g.kind.family == .polygon, r.hasArea else { return .empty }
        var out = FlatPolygons()
        var cutter = PolygonCutter(rect: r, cancellation: cancellation)
        let boxes = boxes?.count == g.polygonCount ? boxes : nil
        var scratch: [Point2] = []
        for j in 0..<g.polygonCount {
            if let b = boxes?[j] {
                if b.maxX < r.minX || b.minX > r.maxX || b.maxY < r.minY || b.minY > r.maxY { continue }
                if r.minX < b.minX, b.maxX < r.maxX, r.minY < b.minY, b.maxY < r.maxY {
                    if cancellation.isCancelled(atStep: j, every: 1024) { return .cancelled }
                    out.appendInside(g, polygon: j, scratch: &scratch)
                    continue
                }
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
            case .pieces(let pieces): for polygon in pieces { out.append(polygon) }
            case .inconsistent: return .inconsistent
            case .cancelled: return .cancelled
            }
        }
        guard let geometry = out.geometry else { return .empty }
        return .polygons(geometry)
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

/// The output of `clipPolygons` under construction: polygons in flat storage, rings closed.
private struct FlatPolygons {
    var xy: [Double] = []
    var partStarts: [Int32] = []
    var polygonStarts: [Int32] = []

    var geometry: Geometry? {
        guard !polygonStarts.isEmpty else { return nil }
        return Geometry(
            kind: polygonStarts.count == 1 ? .polygon : .multiPolygon, xy: xy, partStarts: partStarts,
            polygonStarts: polygonStarts)
    }

    /// One polygon (open rings, exterior first).
    mutating func append(_ rings: [[Point2]]) {
        polygonStarts.append(Int32(partStarts.count))
        for ring in rings { appendRing(ring[...], reversed: false) }
    }

    mutating func appendRing(_ ring: ArraySlice<Point2>, reversed: Bool) {
        partStarts.append(Int32(xy.count / 2))
        if reversed {
            for p in ring.reversed() {
                xy.append(p.x)
                xy.append(p.y)
            }
        } else {
            for p in ring {
                xy.append(p.x)
                xy.append(p.y)
            }
        }
        let first = reversed ? ring[ring.endIndex - 1] : ring[ring.startIndex]
        xy.append(first.x)
        xy.append(first.y)
    }

    /// Polygon `j` of `g`, whose box lies strictly inside the rectangle's interior, exactly as `PolygonCutter.cut`
    /// returns such a polygon, without its walk: consecutive repeats and the closing point dropped, no exterior
    /// without area (then nothing), holes without area or with fewer than 3 points dropped, the exterior
    /// counter-clockwise and the holes clockwise.
    mutating func appendInside(_ g: Geometry, polygon j: Int, scratch: inout [Point2]) {
        var first = true
        for part in g.partRange(ofPolygon: j) {
            scratch.removeAll(keepingCapacity: true)
            for i in g.pointRange(ofPart: part) {
                let p = Point2(x: g.xy[2 * i], y: g.xy[2 * i + 1])
                if scratch.last != p { scratch.append(p) }
            }
            if scratch.count > 1, scratch.first == scratch.last { scratch.removeLast() }
            guard scratch.count >= 3 else {
                if first { return }
                continue
            }
            let area = RectangleClipper.signedArea(scratch)
            guard area != 0 else {
                if first { return }
                continue
            }
            if first { polygonStarts.append(Int32(partStarts.count)) }
            appendRing(scratch[...], reversed: first ? area < 0 : area > 0)
            first = false
        }
    }
}
