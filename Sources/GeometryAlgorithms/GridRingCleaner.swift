/// Removes the vertices of a ring on the integer tile grid that add no area: repeated points, points on the line
/// through their neighbours, and the tips of zero-width spikes (the next edge folds straight back).
///
/// Quantizing a dense ring — a saw-tooth whose teeth are narrower than a grid unit, a star whose inner vertices
/// fall into a few cells — turns its teeth into collinear back-and-forth runs that overlap each other. Handing
/// such a ring to GEOS makes its noding quadratic in the number of overlapping segments; after this pass the
/// runs are gone. One stack pass, O(n): each vertex is pushed and popped at most once; the seam between the
/// ring's end and start is cleaned the same way.
public enum GridRingCleaner {
    /// The ring (open: no closing duplicate) without vertices that add no area; fewer than 3 points when nothing
    /// with an area is left.
    public static func cleaned(_ ring: [TilePoint]) -> [TilePoint] {
        var out: [TilePoint] = []
        out.reserveCapacity(ring.count)
        for p in ring { push(p, onto: &out) }
        // The seam: the first points may now be collinear with the last ones.
        var start = 0
        var changed = true
        while changed, out.count - start >= 3 {
            changed = false
            let n = out.count
            // Last vertex between its predecessor and the first one.
            if out[n - 1] == out[start] || RingValidator.orientation(out[n - 2], out[n - 1], out[start]) == 0 {
                out.removeLast()
                changed = true
                continue
            }
            // First vertex between the last one and the second.
            if RingValidator.orientation(out[n - 1], out[start], out[start + 1]) == 0 {
                start += 1
                changed = true
            }
        }
        return start == 0 ? out : Array(out[start...])
    }

    @inline(__always)
    private static func push(_ p: TilePoint, onto out: inout [TilePoint]) {
        if out.last == p { return }
        while out.count >= 2, RingValidator.orientation(out[out.count - 2], out[out.count - 1], p) == 0 {
            out.removeLast()
        }
        if out.last != p { out.append(p) }
    }
}
