/// A box in tile units, edges included.
struct GridBox {
    var minX: Int32
    var minY: Int32
    var maxX: Int32
    var maxY: Int32

    init(_ a: TilePoint, _ b: TilePoint) {
        minX = min(a.x, b.x)
        minY = min(a.y, b.y)
        maxX = max(a.x, b.x)
        maxY = max(a.y, b.y)
    }

    init(point p: TilePoint) { self.init(p, p) }

    mutating func add(_ p: TilePoint) {
        minX = min(minX, p.x)
        minY = min(minY, p.y)
        maxX = max(maxX, p.x)
        maxY = max(maxY, p.y)
    }

    func contains(_ p: TilePoint) -> Bool { minX <= p.x && p.x <= maxX && minY <= p.y && p.y <= maxY }

    func intersects(_ o: GridBox) -> Bool { minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY }
}

/// A uniform grid hash over tile coordinates: items are filed under every cell their box covers, and a query
/// visits the cells of its box. The cell size adapts to the data (see `cellSize(boxes:)`), so the work per item is
/// constant on average and the whole build is O(n) expected.
///
/// Dictionary iteration order is never used (Swift seeds hashing per process): callers only look cells up, and
/// items come back in insertion order within a cell, so results are deterministic.
struct CellGrid {
    let cell: Int64
    private var buckets: [Int64: [Int32]] = [:]

    init(cell: Int64) {
        self.cell = max(1, cell)
    }

    /// A cell size for filing `boxes` and querying `queries`: about their mean size, doubled until they cover at
    /// most a few cells each on average (long diagonal segments would otherwise fill or visit many cells).
    static func cellSize(boxes: [GridBox], queries: [GridBox] = []) -> Int64 {
        let all = boxes.count + queries.count
        guard all > 0 else { return 1 }
        var sum: Int64 = 0
        for b in boxes { sum += max(Int64(b.maxX) - Int64(b.minX), Int64(b.maxY) - Int64(b.minY)) }
        for b in queries { sum += max(Int64(b.maxX) - Int64(b.minX), Int64(b.maxY) - Int64(b.minY)) }
        var c = max(1, sum / Int64(all))
        let budget = Int64(4 * all + 1024)
        while c < (1 << 32) {
            var total: Int64 = 0
            for b in boxes { total += covered(b, cell: c) }
            for b in queries { total += covered(b, cell: c) }
            if total <= budget { break }
            c *= 2
        }
        return c
    }

    private static func covered(_ b: GridBox, cell c: Int64) -> Int64 {
        (floorDiv(Int64(b.maxX), c) - floorDiv(Int64(b.minX), c) + 1)
            * (floorDiv(Int64(b.maxY), c) - floorDiv(Int64(b.minY), c) + 1)
    }

    @inline(__always)
    private static func floorDiv(_ v: Int64, _ c: Int64) -> Int64 { v >= 0 ? v / c : -((-v + c - 1) / c) }

    @inline(__always)
    private static func key(_ cx: Int64, _ cy: Int64) -> Int64 { cx << 32 | (cy & 0xFFFF_FFFF) }

    /// The cell holding `p`, as a key.
    func cellKey(_ x: Int32, _ y: Int32) -> Int64 {
        Self.key(Self.floorDiv(Int64(x), cell), Self.floorDiv(Int64(y), cell))
    }

    /// Files `item` under every cell `box` covers.
    mutating func insert(_ item: Int32, box: GridBox) {
        let x0 = Self.floorDiv(Int64(box.minX), cell), x1 = Self.floorDiv(Int64(box.maxX), cell)
        let y0 = Self.floorDiv(Int64(box.minY), cell), y1 = Self.floorDiv(Int64(box.maxY), cell)
        for cx in x0...x1 {
            for cy in y0...y1 { buckets[Self.key(cx, cy), default: []].append(item) }
        }
    }

    /// Calls `body(cellKey, items)` for every non-empty cell `box` covers, in row-major order.
    func forEachCell(in box: GridBox, _ body: (Int64, [Int32]) -> Void) {
        let x0 = Self.floorDiv(Int64(box.minX), cell), x1 = Self.floorDiv(Int64(box.maxX), cell)
        let y0 = Self.floorDiv(Int64(box.minY), cell), y1 = Self.floorDiv(Int64(box.maxY), cell)
        for cx in x0...x1 {
            for cy in y0...y1 {
                let k = Self.key(cx, cy)
                if let items = buckets[k] { body(k, items) }
            }
        }
    }
}
