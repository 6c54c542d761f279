/// The even-spread levels of one tile's features: a fixed quadtree inside the tile (level L has 2^L × 2^L cells).
///
/// Level 0 places one feature in the tile; each finer level places one feature in every cell that holds no
/// feature placed before. A cell's feature is the one with the highest priority, then the one nearest the cell's
/// centre (so placed features keep apart), then the best rank. Every feature of the tile takes part (also those
/// outside the queried region), so levels depend on the tile alone and the selection `(level, rank)` is the same
/// whatever the view.
enum SpreadLevels {
    /// Finest level (cells of 1/256 tile, 16 units at extent 4096).
    static let maxLevel = 8
    /// The level of a feature placed at no level.
    static let unplaced = maxLevel + 1

    struct Candidate {
        /// The collector's entry, nil for a feature outside the region (it still takes its cell).
        var slot: Int?
        var rank: QueryRank
        /// Anchor as a fraction of the tile, in `0..<1`.
        var anchor: (x: Double, y: Double)
    }

    /// (slot, level) for every candidate with a slot.
    static func levels(_ candidates: [Candidate]) -> [(Int, Int)] {
        let cells = 1 << maxLevel
        let fine = candidates.map { c -> (x: Int, y: Int) in
            func cell(_ v: Double) -> Int { min(max(Int((v * Double(cells)).rounded(.down)), 0), cells - 1) }
            return (cell(c.anchor.x), cell(c.anchor.y))
        }
        var level = [Int](repeating: unplaced, count: candidates.count)
        var placed: [Int] = []
        for l in 0...maxLevel {
            let shift = maxLevel - l
            func key(_ i: Int) -> Int { (fine[i].x >> shift) << 16 | (fine[i].y >> shift) }
            let size = 1 / Double(1 << l)
            func distance(_ i: Int) -> Double {
                let cx = (Double(fine[i].x >> shift) + 0.5) * size
                let cy = (Double(fine[i].y >> shift) + 0.5) * size
                let dx = candidates[i].anchor.x - cx
                let dy = candidates[i].anchor.y - cy
                return dx * dx + dy * dy
            }
            func better(_ i: Int, _ j: Int) -> Bool {
                let a = candidates[i].rank
                let b = candidates[j].rank
                if a.priority != b.priority { return a < b }
                let da = distance(i)
                let db = distance(j)
                if da != db { return da < db }
                return a < b
            }
            let occupied = Set(placed.map(key))
            var best: [Int: Int] = [:]
            for i in candidates.indices where level[i] == unplaced {
                let k = key(i)
                guard !occupied.contains(k) else { continue }
                if let j = best[k], !better(i, j) { continue }
                best[k] = i
            }
            for i in best.values {
                level[i] = l
                placed.append(i)
            }
        }
        return candidates.indices.compactMap { i in candidates[i].slot.map { ($0, level[i]) } }
    }
}
