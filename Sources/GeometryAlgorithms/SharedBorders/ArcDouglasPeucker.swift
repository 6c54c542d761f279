/// Step 3 of shared-border simplification: Douglas–Peucker on every arc once, in its canonical direction, with
/// its end nodes fixed. The result is a flag per arc point (`kept`), so a ring's simplified outline is its arcs'
/// kept points, and two rings sharing an arc get the same simplified border.
enum ArcDouglasPeucker {
    /// Kept flags for `graph.points`: arc ends always; a closed arc also keeps its point farthest from its start
    /// (first on ties); between kept points, the farthest vertex from the chord (see `farthest`) while it is
    /// farther than `tolerance`.
    static func keptFlags(_ graph: ArcGraph, tolerance: Double) -> [Bool] {
        let pts = graph.points
        var kept = [Bool](repeating: false, count: pts.count)
        let tol2 = tolerance * tolerance
        var spans: [(Int, Int)] = []
        for a in 0..<graph.arcCount {
            let r = graph.range(ofArc: a)
            let first = r.lowerBound, last = r.upperBound - 1
            kept[first] = true
            kept[last] = true
            guard last > first + 1 else { continue }
            if pts[first] == pts[last] {
                var far = first + 1
                var best: Int128 = -1
                for i in (first + 1)..<last {
                    let dx = Int128(pts[i].x) - Int128(pts[first].x), dy = Int128(pts[i].y) - Int128(pts[first].y)
                    let d = dx * dx + dy * dy
                    if d > best {
                        best = d
                        far = i
                    }
                }
                kept[far] = true
                spans = [(first, far), (far, last)]
            } else {
                spans = [(first, last)]
            }
            while let (i, j) = spans.popLast() {
                guard j > i + 1 else { continue }
                let (k, d2) = farthest(pts, i, j)
                if d2 > tol2 {
                    kept[k] = true
                    spans.append((i, k))
                    spans.append((k, j))
                }
            }
        }
        return kept
    }

    /// The vertex strictly between `i` and `j` farthest from the chord `pts[i]`–`pts[j]` and its squared
    /// distance. On ties the one nearest the middle of the span (then the first): zigzags are halved, not peeled
    /// one vertex at a time. Requires `j > i + 1`.
    static func farthest(_ pts: [TilePoint], _ i: Int, _ j: Int) -> (index: Int, distance2: Double) {
        let a = pts[i], b = pts[j]
        var worst = i + 1
        var worstD = -1.0
        let mid2 = i + j
        for k in (i + 1)..<j {
            let d = distance2(pts[k], a, b)
            if d > worstD || (d == worstD && abs(2 * k - mid2) < abs(2 * worst - mid2)) {
                worstD = d
                worst = k
            }
        }
        return (worst, worstD)
    }

    /// Squared distance from `p` to the segment `a`–`b`.
    static func distance2(_ p: TilePoint, _ a: TilePoint, _ b: TilePoint) -> Double {
        let ax = Double(a.x), ay = Double(a.y)
        let dx = Double(b.x) - ax, dy = Double(b.y) - ay
        let px = Double(p.x) - ax, py = Double(p.y) - ay
        let len2 = dx * dx + dy * dy
        var t = len2 > 0 ? (px * dx + py * dy) / len2 : 0
        t = min(1, max(0, t))
        let cx = t * dx - px, cy = t * dy - py
        return cx * cx + cy * cy
    }
}
