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

    /// The box around a non-empty ring.
    init(_ ring: [TilePoint]) {
        self.init(point: ring[0])
        for p in ring.dropFirst() { add(p) }
    }

    mutating func add(_ p: TilePoint) {
        minX = min(minX, p.x)
        minY = min(minY, p.y)
        maxX = max(maxX, p.x)
        maxY = max(maxY, p.y)
    }

    func contains(_ p: TilePoint) -> Bool { minX <= p.x && p.x <= maxX && minY <= p.y && p.y <= maxY }

    func contains(_ o: GridBox) -> Bool { minX <= o.minX && o.maxX <= maxX && minY <= o.minY && o.maxY <= maxY }

    func intersects(_ o: GridBox) -> Bool { minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY }
}

/// A uniform grid over tile coordinates, stored densely (compressed rows: one offset per cell, then the items):
/// each item is filed under every cell its box covers, and a query visits the cells of its box.
///
/// The cell size adapts to the data: a power of two (cells are found by shifts, not divisions) at least the mean
/// size of the items and queries, doubled until they cover a few cells each on average and the grid has at most a
/// few cells per item. So building and querying cost O(n) expected, with no hashing and one allocation per array.
/// Items come back in index order within a cell. The callers' answers do not depend on the cell size.
struct CellGrid {
    /// log2 of the cell side.
    private let shift: Int64
    private let originX: Int64
    private let originY: Int64
    private let columns: Int64
    private let rows: Int64
    private var offsets: [Int32]
    private var items: [Int32]

    /// Files item `i` under the cells of `boxes[i]`; `queries` are the boxes that will be asked for (they only
    /// tune the cell size).
    init(boxes: [GridBox], queries: [GridBox] = []) {
        var bounds = boxes.first ?? queries.first ?? GridBox(point: TilePoint(0, 0))
        var sum: Int64 = 0
        for b in boxes {
            bounds.minX = min(bounds.minX, b.minX)
            bounds.minY = min(bounds.minY, b.minY)
            bounds.maxX = max(bounds.maxX, b.maxX)
            bounds.maxY = max(bounds.maxY, b.maxY)
            sum += Self.size(b)
        }
        for b in queries { sum += Self.size(b) }
        let all = boxes.count + queries.count
        let mean = max(1, sum / Int64(max(1, all)))
        var s: Int64 = 0
        while (1 << s) < mean { s += 1 }
        let budget = Int64(4 * all + 1024)
        let width = Int64(bounds.maxX) - Int64(bounds.minX) + 1
        let height = Int64(bounds.maxY) - Int64(bounds.minY) + 1
        while s < 32 {
            let cells = ((width >> s) + 1) * ((height >> s) + 1)
            if cells <= budget && Self.covers(boxes, queries, shift: s, atMost: budget) { break }
            s += 1
        }
        shift = s
        originX = Self.cell(bounds.minX, s)
        originY = Self.cell(bounds.minY, s)
        columns = Self.cell(bounds.maxX, s) - originX + 1
        rows = Self.cell(bounds.maxY, s) - originY + 1
        // Filled through buffer pointers: no uniqueness check or reference count per filed item. Cell k's count
        // goes to `counts[k + 2]`; after the prefix sums `counts[k + 1]` is where cell k starts, and filing moves it
        // to where cell k ends, that is where cell k + 1 starts: the offsets, without a second array.
        let cells = Int(columns * rows)
        var counts = [Int32](repeating: 0, count: cells + 2)
        let (ox, oy, cols) = (originX, originY, columns)
        counts.withUnsafeMutableBufferPointer { c in
            for b in boxes { Self.forEachFiled(b, shift: s, ox, oy, cols) { c[$0 + 2] += 1 } }
            for k in 1..<c.count { c[k] += c[k - 1] }
        }
        let total = Int(counts[cells + 1])
        let items = [Int32](unsafeUninitializedCapacity: total) { out, filled in
            counts.withUnsafeMutableBufferPointer { f in
                for (i, b) in boxes.enumerated() {
                    Self.forEachFiled(b, shift: s, ox, oy, cols) { k in
                        out[Int(f[k + 1])] = Int32(i)
                        f[k + 1] += 1
                    }
                }
            }
            filled = total
        }
        offsets = counts
        self.items = items
    }

    private static func size(_ b: GridBox) -> Int64 {
        max(Int64(b.maxX) - Int64(b.minX), Int64(b.maxY) - Int64(b.minY))
    }

    /// The row or column of coordinate `v` at cell side `1 << s` (0 ≤ s ≤ 32): a masking shift, the same value as
    /// `>>` there without the checks of a smart shift, and differences of such values cannot overflow.
    @inline(__always)
    private static func cell(_ v: Int32, _ s: Int64) -> Int64 { Int64(v) &>> s }

    private static func covered(_ b: GridBox, shift s: Int64) -> Int64 {
        (cell(b.maxX, s) &- cell(b.minX, s) &+ 1) * (cell(b.maxY, s) &- cell(b.minY, s) &+ 1)
    }

    /// Whether the cells `boxes` and `queries` cover at cell side `1 << s` add up to at most `budget`; stops at the
    /// first box past it (a box's corners are ordered by its initializers, so it covers at least one cell and the
    /// sum only grows).
    private static func covers(_ boxes: [GridBox], _ queries: [GridBox], shift s: Int64, atMost budget: Int64) -> Bool {
        var total: Int64 = 0
        for b in boxes {
            total += covered(b, shift: s)
            if total > budget { return false }
        }
        for b in queries {
            total += covered(b, shift: s)
            if total > budget { return false }
        }
        return true
    }

    /// `forEach` for a box filed in the grid: inside the grid's bounds by construction, so not clipped; a box in
    /// one cell (a point, or a segment shorter than a cell, as most are) without the loops.
    @inline(__always)
    private static func forEachFiled(
        _ b: GridBox, shift s: Int64, _ ox: Int64, _ oy: Int64, _ columns: Int64, _ body: (Int) -> Void
    ) {
        let x0 = cell(b.minX, s) &- ox, x1 = cell(b.maxX, s) &- ox
        let y0 = cell(b.minY, s) &- oy, y1 = cell(b.maxY, s) &- oy
        if x0 == x1 && y0 == y1 {
            body(Int(y0 &* columns &+ x0))
            return
        }
        guard x0 <= x1, y0 <= y1 else { return }
        for cy in y0...y1 {
            for cx in x0...x1 { body(Int(cy &* columns &+ cx)) }
        }
    }

    /// Calls `body(cellIndex)` for the grid cells `b` covers (clipped to the grid).
    @inline(__always)
    private static func forEach(
        _ b: GridBox, shift s: Int64, _ ox: Int64, _ oy: Int64, _ columns: Int64, _ rows: Int64,
        _ body: (Int) -> Void
    ) {
        let x0 = max(0, cell(b.minX, s) &- ox), x1 = min(columns &- 1, cell(b.maxX, s) &- ox)
        let y0 = max(0, cell(b.minY, s) &- oy), y1 = min(rows &- 1, cell(b.maxY, s) &- oy)
        guard x0 <= x1, y0 <= y1 else { return }
        for cy in y0...y1 {
            for cx in x0...x1 { body(Int(cy &* columns &+ cx)) }
        }
    }

    /// The index of the cell holding the point (x, y), which must lie inside the grid's bounds.
    func cellIndex(_ x: Int32, _ y: Int32) -> Int {
        Int((Self.cell(y, shift) &- originY) &* columns &+ (Self.cell(x, shift) &- originX))
    }

    /// Calls `body(cellIndex, items)` for every non-empty cell `box` covers, row by row.
    /// (The items are lent for the call only: no array slice, so no reference count, per cell.)
    func forEachCell(in box: GridBox, _ body: (Int, Slice<UnsafeBufferPointer<Int32>>) -> Void) {
        offsets.withUnsafeBufferPointer { o in
            items.withUnsafeBufferPointer { it in
                Self.forEach(box, shift: shift, originX, originY, columns, rows) { k in
                    let lo = Int(o[k]), hi = Int(o[k + 1])
                    if lo < hi { body(k, it[lo..<hi]) }
                }
            }
        }
    }
}
