public import KartpackCore
/// A point in a plane (metres, tile units or pixels).
public struct Point2: Hashable, Sendable {
    /// East / right.
    public var x: Double
    /// North or down, as the caller's plane has it.
    public var y: Double

    /// Creates a point.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// Clipping to a rectangle: Sutherland–Hodgman for rings (fills), Liang–Barsky for polylines (strokes). The one
/// implementation of both: previews draw with it and GEOS clip results are checked with it.
public enum RectangleClipper {
    /// Sutherland–Hodgman on an open ring of interleaved coordinates: the result replaces `xy` (`scratch` is
    /// reused between calls). Degenerate edges along the rectangle are kept: the output's signed area and moments
    /// are exactly those of the ring's winding number inside the rectangle, for any simple ring.
    public static func clip(ring xy: inout [Double], scratch: inout [Double], to r: Bounds) {
        clip(&xy, &scratch, axis: 0, limit: r.minX, keepGreater: true)
        clip(&xy, &scratch, axis: 0, limit: r.maxX, keepGreater: false)
        clip(&xy, &scratch, axis: 1, limit: r.minY, keepGreater: true)
        clip(&xy, &scratch, axis: 1, limit: r.maxY, keepGreater: false)
    }

    /// One pass against `coordinate[axis] >=/<= limit`.
    private static func clip(_ a: inout [Double], _ b: inout [Double], axis: Int, limit: Double, keepGreater: Bool) {
        let n = a.count / 2
        guard n > 0 else { return }
        b.removeAll(keepingCapacity: true)
        func inside(_ i: Int) -> Bool { keepGreater ? a[2 * i + axis] >= limit : a[2 * i + axis] <= limit }
        var prev = n - 1
        var prevInside = inside(prev)
        for cur in 0..<n {
            let curInside = inside(cur)
            if curInside != prevInside {
                let p0 = a[2 * prev + axis]
                let p1 = a[2 * cur + axis]
                let t = (limit - p0) / (p1 - p0)
                let other = 1 - axis
                let q = a[2 * prev + other] + t * (a[2 * cur + other] - a[2 * prev + other])
                if axis == 0 {
                    b.append(limit)
                    b.append(q)
                } else {
                    b.append(q)
                    b.append(limit)
                }
            }
            if curInside {
                b.append(a[2 * cur])
                b.append(a[2 * cur + 1])
            }
            prev = cur
            prevInside = curInside
        }
        swap(&a, &b)
    }

    /// The part of a ring (open or closed) inside `r`, open, without repeated points; empty when fewer than 3
    /// points remain.
    public static func clipRing(_ ring: [Point2], to r: Bounds) -> [Point2] {
        var pts = ring
        if pts.count > 1, pts.first == pts.last { pts.removeLast() }
        guard pts.count >= 3 else { return [] }
        var xy: [Double] = []
        xy.reserveCapacity(2 * pts.count + 8)
        for p in pts { xy += [p.x, p.y] }
        var scratch: [Double] = []
        clip(ring: &xy, scratch: &scratch, to: r)
        // Drop consecutive duplicates the clipping may create.
        var cleaned: [Point2] = []
        for i in stride(from: 0, to: xy.count, by: 2) {
            let p = Point2(x: xy[i], y: xy[i + 1])
            if cleaned.last != p { cleaned.append(p) }
        }
        if cleaned.count > 1, cleaned.first == cleaned.last { cleaned.removeLast() }
        return cleaned.count >= 3 ? cleaned : []
    }

    /// The parts of a polyline inside `r` (each with at least 2 distinct points).
    public static func clipLine(_ line: [Point2], to r: Bounds) -> [[Point2]] {
        guard line.count >= 2 else { return [] }
        var parts: [[Point2]] = []
        var current: [Point2] = []
        func flush() {
            if current.count >= 2 { parts.append(current) }
            current = []
        }
        for i in 0..<(line.count - 1) {
            guard let (a, b) = clipSegment(line[i], line[i + 1], r) else {
                flush()
                continue
            }
            if let last = current.last, last == a {
                if b != last { current.append(b) }
            } else {
                flush()
                if a != b { current = [a, b] }
            }
            if b != line[i + 1] { flush() }  // the segment leaves the rectangle
        }
        flush()
        return parts
    }

    /// Liang–Barsky: the part of segment a→b inside `r`, or nil.
    public static func clipSegment(_ a: Point2, _ b: Point2, _ r: Bounds) -> (Point2, Point2)? {
        let dx = b.x - a.x
        let dy = b.y - a.y
        var t0 = 0.0
        var t1 = 1.0
        for (p, q) in [(-dx, a.x - r.minX), (dx, r.maxX - a.x), (-dy, a.y - r.minY), (dy, r.maxY - a.y)] {
            if p == 0 {
                if q < 0 { return nil }
                continue
            }
            let t = q / p
            if p < 0 {
                if t > t1 { return nil }
                if t > t0 { t0 = t }
            } else {
                if t < t0 { return nil }
                if t < t1 { t1 = t }
            }
        }
        let s = t0 == 0 ? a : Point2(x: a.x + t0 * dx, y: a.y + t0 * dy)
        let e = t1 == 1 ? b : Point2(x: a.x + t1 * dx, y: a.y + t1 * dy)
        return (s, e)
    }

    /// Signed area (shoelace) of an open ring.
    public static func area(_ ring: [Point2]) -> Double {
        guard ring.count >= 3 else { return 0 }
        var s = 0.0
        for i in 0..<ring.count {
            let p = ring[i]
            let q = ring[(i + 1) % ring.count]
            s += p.x * q.y - q.x * p.y
        }
        return s / 2
    }
}
