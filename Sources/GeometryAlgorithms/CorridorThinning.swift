public import KartpackCore

/// Thins a ring whose detail lies far below a tolerance by joining vertices along a corridor: from each kept
/// vertex, the next one kept is the farthest (within a window of `window` vertices) such that every vertex between
/// them lies within `tolerance` of the segment joining the two.
///
/// Unlike Douglas–Peucker, which compares vertices with the chord between the run's far ends and so cannot thin a
/// dense saw-tooth or star (every tooth tip is far from a chord joining two tips), the corridor follows the ring:
/// a tooth's flank from tip to base is such a segment, and a run of teeth narrower than `tolerance` becomes one
/// tooth as tall and as wide as the run, so the share of each height (or radius) they cover is kept. The result's
/// vertices are a subset of the input's; every point of it lies within `tolerance` of the input and every input
/// vertex within `tolerance` of it. It may not be simple: callers check. O(n × window²).
public enum CorridorThinning {
    /// The closed ring `xy` (interleaved x, y, first point repeated last) thinned as described above, closed. The
    /// first vertex is always kept. Nil when `cancellation` was set first (polled every few thousand vertices).
    public static func thinned(
        _ xy: ArraySlice<Double>, tolerance: Double, window: Int, cancellation: CancellationFlag = .process
    ) -> [Double]? {
        let n = xy.count / 2
        guard n > 3, tolerance > 0, window >= 2 else { return Array(xy) }
        let t2 = tolerance * tolerance
        var out: [Double] = []
        var cancelled = false
        xy.withUnsafeBufferPointer { p in
            @inline(__always) func x(_ i: Int) -> Double { p[2 * i] }
            @inline(__always) func y(_ i: Int) -> Double { p[2 * i + 1] }
            /// True when every vertex strictly between `a` and `b` lies within the tolerance of segment a–b.
            func fits(_ a: Int, _ b: Int) -> Bool {
                let ax = x(a)
                let ay = y(a)
                let dx = x(b) - ax
                let dy = y(b) - ay
                let length2 = dx * dx + dy * dy
                for k in (a + 1)..<b {
                    let px = x(k) - ax
                    let py = y(k) - ay
                    var t = length2 > 0 ? (px * dx + py * dy) / length2 : 0
                    t = min(1, max(0, t))
                    let qx = px - t * dx
                    let qy = py - t * dy
                    if qx * qx + qy * qy > t2 { return false }
                }
                return true
            }
            out.reserveCapacity(n)  // x and y of up to half the vertices
            var a = 0
            out.append(x(0))
            out.append(y(0))
            var steps = 0
            while a < n - 1 {
                steps += 1
                if cancellation.isCancelled(atStep: steps, every: 1024) {
                    cancelled = true
                    return
                }
                var best = a + 1
                var b = a + 2
                let last = min(n - 1, a + window)
                while b <= last {
                    if fits(a, b) { best = b }
                    b += 1
                }
                out.append(x(best))
                out.append(y(best))
                a = best
            }
        }
        return cancelled ? nil : out
    }

    /// How many vertices of the closed ring `xy` are tips of narrow teeth: their two neighbours lie within
    /// `tolerance` of each other while both edges are longer than twice it. A dense saw-tooth or star is made of
    /// them; a smooth curve, however dense, has none (Douglas–Peucker thins it already).
    public static func narrowTipCount(_ xy: ArraySlice<Double>, tolerance: Double) -> Int {
        let n = xy.count / 2 - 1
        guard n >= 3 else { return 0 }
        let t2 = tolerance * tolerance
        let long2 = 4 * t2
        var count = 0
        xy.withUnsafeBufferPointer { p in
            @inline(__always) func d2(_ i: Int, _ j: Int) -> Double {
                let dx = p[2 * i] - p[2 * j]
                let dy = p[2 * i + 1] - p[2 * j + 1]
                return dx * dx + dy * dy
            }
            for i in 0..<n {
                let before = i == 0 ? n - 1 : i - 1
                let after = i + 1
                if d2(before, after) <= t2, d2(i, before) > long2, d2(i, after) > long2 { count += 1 }
            }
        }
        return count
    }
}
