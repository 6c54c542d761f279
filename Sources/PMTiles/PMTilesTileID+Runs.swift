import KartpackCore

extension PMTilesTileID {
    /// Visits the tiles of a run-length entry (`first ..< first + count`, one blob for all of them) that lie in
    /// `area(z)` at zooms up to `maxZoom`, zoom by zoom.
    ///
    /// A run may span billions of ids and an area millions of tiles, so each zoom walks the smaller of the two:
    /// the run's ids at that zoom (kept when inside the area's range) or the area's tiles (kept when their id is in
    /// the run). Every id or tile looked at costs one unit of `budget`; the walk stops when the budget goes below
    /// zero (the caller reports it) or when `body` returns false.
    /// - Returns: false when stopped early (by `body` or the budget).
    public static func forEachTile(
        inRun first: UInt64, count: UInt64, maxZoom: Int, budget: inout Int, within area: (Int) -> TileRange?,
        _ body: (TileCoordinate) -> Bool
    ) -> Bool {
        guard count > 0, let start = coordinate(first) else { return true }
        let (end, overflow) = first.addingReportingOverflow(count - 1)
        let last = overflow ? UInt64.max : end
        var z = start.z
        while z <= min(maxZoom, TileCoordinate.maxZoom), base(z) <= last {
            defer { z += 1 }
            let lo = max(first, base(z))
            let hi = min(last, base(z + 1) - 1)
            guard lo <= hi, let range = area(z), range.count > 0 else { continue }
            if hi - lo < UInt64(range.count) {
                for id in lo...hi {
                    budget -= 1
                    guard budget >= 0 else { return false }
                    guard let t = coordinate(id), range.contains(t) else { continue }
                    if !body(t) { return false }
                }
            } else {
                for t in range {
                    budget -= 1
                    guard budget >= 0 else { return false }
                    guard let id = id(t), id >= lo, id <= hi else { continue }
                    if !body(t) { return false }
                }
            }
        }
        return true
    }
}
