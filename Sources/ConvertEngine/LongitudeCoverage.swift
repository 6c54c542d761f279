import KartpackCore

/// Which longitudes a package's features occupy, in `binCount` equal bins around the world, marked from the
/// tile columns of the features' pieces at their top zoom. A region split at ±180° (a Pacific island group, a
/// `--bbox 170,-25,-170,-10`) occupies bins at both ends: its bounds are −180…180, as TileJSON 3.0 requires
/// (bounds must not wrap around the antimeridian), but its centre is the middle of the occupied arc, so a client
/// opens over the data instead of over longitude 0.
package struct LongitudeCoverage: Sendable, Equatable {
    static let binCount = 1024
    private(set) var bins = [Bool](repeating: false, count: binCount)

    /// Marks the longitudes of tile column `x` at zoom `z`.
    mutating func mark(tileX x: Int, zoom z: Int) {
        let n = 1 << z
        let first = x * Self.binCount / n
        let last = max(first, ((x + 1) * Self.binCount - 1) / n)
        guard first >= 0, last < Self.binCount else { return }
        for i in first...last { bins[i] = true }
    }

    /// The longitude in the middle of the occupied arc (the circle without its largest empty run of bins) when
    /// that arc crosses the antimeridian; nil when it does not (the bounds' middle is right) or nothing is marked.
    var centerAcrossAntimeridian: Double? {
        let n = Self.binCount
        guard bins.contains(false), let occupied = bins.firstIndex(of: true) else { return nil }
        // The largest run of empty bins on the circle; the walk starts after an occupied bin, so no run is cut.
        var best = (start: 0, length: 0)
        var run = (start: 0, length: 0)
        for k in 1...n {
            let i = (occupied + k) % n
            if bins[i] {
                run.length = 0
                continue
            }
            if run.length == 0 { run.start = i }
            run.length += 1
            if run.length > best.length { best = run }
        }
        // The largest gap ends at bin n-1 or starts at bin 0 (or wraps): the arc does not cross ±180.
        let gapEnd = best.start + best.length  // exclusive, may exceed n
        if best.start == 0 || gapEnd == n || gapEnd > n { return nil }
        // The occupied arc runs from gapEnd to best.start - 1 (+ n), crossing the seam.
        let arcStart = Double(gapEnd)
        let arcEnd = Double(best.start + n)
        var lon = ((arcStart + arcEnd) / 2 / Double(n)) * 360 - 180
        if lon > 180 { lon -= 360 }
        return (lon * 1e7).rounded() / 1e7
    }
}
