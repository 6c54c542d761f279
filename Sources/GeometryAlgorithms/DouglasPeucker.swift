import KartpackCore

/// Douglas–Peucker simplification of every part of a geometry — lines and polygon rings alike — in pure Swift.
///
/// Used per tile piece at each zoom: it is several times cheaper than GEOS's topology-preserving simplifier (which
/// builds a quadtree per call), and what it cannot guarantee — rings that cross or collapse — is checked on the
/// integer grid right after quantization, where a broken polygon is repaired with GEOS (`grid_repair`). Lines keep
/// their end points; rings stay closed and keep their first point and the point farthest from it.
///
/// O(n log n) in the part's size whatever its shape: plain Douglas–Peucker is quadratic when every split peels
/// off one vertex (a saw-tooth whose teeth are all equally far from the chord). A span whose split depth passes
/// `2 log2(n) + 8` is split at its middle vertex instead of its farthest one (when that vertex must stay anyway,
/// i.e. the span is not within tolerance), so the depth stays logarithmic; the kept midpoint only adds a vertex,
/// and every removed vertex is still within `tolerance` of the result. Polls `cancellation` and returns the part
/// as far as it got (more vertices, never fewer) when it is set.
public enum DouglasPeucker {
    /// A copy of `g` with vertices closer than `tolerance` to the simplified shape removed.
    public static func simplified(
        _ g: Geometry, tolerance: Double, cancellation: CancellationFlag = .process
    ) -> Geometry {
        guard tolerance > 0, g.kind.family != .point else { return g }
        var xy: [Double] = []
        xy.reserveCapacity(g.xy.count)
        var starts: [Int32] = []
        starts.reserveCapacity(g.partCount)
        // Reused by every part: a piece of many small rings (slivers) must not allocate twice per ring.
        var keep: [Bool] = []
        var spans: [(Int, Int, depth: Int)] = []
        // The distance scans are the hot loop (a million-vertex ring, dozens of passes): no bounds checks there.
        g.xy.withUnsafeBufferPointer { source in
            for part in 0..<g.partCount {
                let r = g.pointRange(ofPart: part)
                starts.append(Int32(xy.count / 2))
                keep.removeAll(keepingCapacity: true)
                keep.append(contentsOf: repeatElement(false, count: r.count))
                let isRing = g.kind.family == .polygon
                mark(
                    source, base: r.lowerBound, count: r.count, ring: isRing, tolerance: tolerance, keep: &keep,
                    spans: &spans, cancellation: cancellation)
                for i in 0..<r.count where keep[i] {
                    xy.append(source[2 * (r.lowerBound + i)])
                    xy.append(source[2 * (r.lowerBound + i) + 1])
                }
            }
        }
        var out = g
        out.xy = xy
        out.partStarts = starts
        return out
    }

    private static func mark(
        _ xy: UnsafeBufferPointer<Double>, base: Int, count n: Int, ring: Bool, tolerance: Double, keep: inout [Bool],
        spans: inout [(Int, Int, depth: Int)], cancellation: CancellationFlag
    ) {
        guard n > 2 else {
            for i in 0..<n { keep[i] = true }
            return
        }
        keep[0] = true
        keep[n - 1] = true
        spans.removeAll(keepingCapacity: true)
        if ring {
            // A closed ring's first and last points coincide: split it at the point farthest from the start.
            let x0 = xy[2 * base], y0 = xy[2 * base + 1]
            var far = 1
            var best = -1.0
            for i in 1..<(n - 1) {
                let dx = xy[2 * (base + i)] - x0, dy = xy[2 * (base + i) + 1] - y0
                let d = dx * dx + dy * dy
                if d > best {
                    best = d
                    far = i
                }
            }
            keep[far] = true
            spans.append((0, far, 0))
            spans.append((far, n - 1, 0))
        } else {
            spans.append((0, n - 1, 0))
        }
        let tol2 = tolerance * tolerance
        let maxDepth = 2 * (Int.bitWidth - n.leadingZeroBitCount) + 8
        var steps = 0
        while let (a, b, depth) = spans.popLast() {
            guard b > a + 1 else { continue }
            steps += b - a
            if steps >= 1 << 16 {
                steps = 0
                if cancellation.isCancelled {
                    // Keep everything not yet decided: more vertices, never a wrong shape.
                    for i in a...b { keep[i] = true }
                    for (c, d, _) in spans { for i in c...d { keep[i] = true } }
                    return
                }
            }
            let ax = xy[2 * (base + a)], ay = xy[2 * (base + a) + 1]
            let bx = xy[2 * (base + b)], by = xy[2 * (base + b) + 1]
            var worst = a
            var worstD = -1.0
            for i in (a + 1)..<b {
                let d = segmentDistance2(xy[2 * (base + i)], xy[2 * (base + i) + 1], ax, ay, bx, by)
                if d > worstD {
                    worstD = d
                    worst = i
                }
            }
            if worstD > tol2 {
                // Past the depth bound the split goes to the middle (see the type's comment).
                let split = depth < maxDepth ? worst : (a + b) / 2
                keep[split] = true
                spans.append((a, split, depth + 1))
                spans.append((split, b, depth + 1))
            }
        }
    }

    /// Squared distance from (px, py) to the segment (ax, ay)–(bx, by).
    private static func segmentDistance2(
        _ px: Double, _ py: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double
    ) -> Double {
        let dx = bx - ax, dy = by - ay
        let len2 = dx * dx + dy * dy
        var t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0
        t = min(1, max(0, t))
        let cx = ax + t * dx - px, cy = ay + t * dy - py
        return cx * cx + cy * cy
    }
}
