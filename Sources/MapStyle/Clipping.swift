/// A point in a plane (tile units or pixels).
struct Point2: Hashable {
    var x: Double
    var y: Double
}

/// An axis-aligned rectangle, both edges inclusive.
struct ClipRect: Hashable {
    var minX: Double
    var minY: Double
    var maxX: Double
    var maxY: Double

    var isEmpty: Bool { !(minX < maxX && minY < maxY) }
}

/// Clipping to a rectangle: Sutherland–Hodgman for rings (fills), Liang–Barsky for polylines (strokes).
enum Clipping {
    /// The part of a ring (open or closed) inside `r`, open; empty when fewer than 3 points remain.
    static func clipRing(_ ring: [Point2], to r: ClipRect) -> [Point2] {
        var pts = ring
        if pts.count > 1, pts.first == pts.last { pts.removeLast() }
        guard pts.count >= 3 else { return [] }
        // Four half-planes: x >= minX, x <= maxX, y >= minY, y <= maxY.
        for edge in 0..<4 {
            guard !pts.isEmpty else { return [] }
            var out: [Point2] = []
            out.reserveCapacity(pts.count + 4)
            func inside(_ p: Point2) -> Bool {
                switch edge {
                case 0: p.x >= r.minX
                case 1: p.x <= r.maxX
                case 2: p.y >= r.minY
                default: p.y <= r.maxY
                }
            }
            func cross(_ a: Point2, _ b: Point2) -> Point2 {
                switch edge {
                case 0, 1:
                    let x = edge == 0 ? r.minX : r.maxX
                    let t = (x - a.x) / (b.x - a.x)
                    return Point2(x: x, y: a.y + t * (b.y - a.y))
                default:
                    let y = edge == 2 ? r.minY : r.maxY
                    let t = (y - a.y) / (b.y - a.y)
                    return Point2(x: a.x + t * (b.x - a.x), y: y)
                }
            }
            var prev = pts[pts.count - 1]
            var prevIn = inside(prev)
            for p in pts {
                let pIn = inside(p)
                if pIn {
                    if !prevIn { out.append(cross(prev, p)) }
                    out.append(p)
                } else if prevIn {
                    out.append(cross(prev, p))
                }
                prev = p
                prevIn = pIn
            }
            pts = out
        }
        // Drop consecutive duplicates the clipping may create.
        var cleaned: [Point2] = []
        for p in pts where cleaned.last != p { cleaned.append(p) }
        if cleaned.count > 1, cleaned.first == cleaned.last { cleaned.removeLast() }
        return cleaned.count >= 3 ? cleaned : []
    }

    /// The parts of a polyline inside `r` (each with at least 2 distinct points).
    static func clipLine(_ line: [Point2], to r: ClipRect) -> [[Point2]] {
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
    static func clipSegment(_ a: Point2, _ b: Point2, _ r: ClipRect) -> (Point2, Point2)? {
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
    static func area(_ ring: [Point2]) -> Double {
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
