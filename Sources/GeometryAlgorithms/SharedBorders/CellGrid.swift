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
/// The cell size adapts to the data: about the mean size of the items and queries, doubled until they cover a few
/// cells each on average and the grid has at most a few cells per item. So building and querying cost O(n)
/// expected, with no hashing and one allocation per array. Items come back in index order within a cell.
struct CellGrid {
    private let cell: Int64
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
        for b in boxes {
            bounds.add(TilePoint(b.minX, b.minY))
            bounds.add(TilePoint(b.maxX, b.maxY))
        }
        let all = boxes.count + queries.count
        var sum: Int64 = 0
        for b in boxes { sum += Self.size(b) }
        for b in queries { sum += Self.size(b) }
        var c = max(1, sum / Int64(max(1, all)))
        let budget = Int64(4 * all + 1024)
        let width = Int64(bounds.maxX) - Int64(bounds.minX) + 1
        let height = Int64(bounds.maxY) - Int64(bounds.minY) + 1
        while c < (1 << 32) {
            let cells = (width / c + 1) * (height / c + 1)
            if cells <= budget {
                var total: Int64 = 0
                for b in boxes { total += Self.covered(b, cell: c) }
                for b in queries { total += Self.covered(b, cell: c) }
                if total <= budget { break }
            }
            c *= 2
        }
        cell = c
        originX = Self.floorDiv(Int64(bounds.minX), c)
        originY = Self.floorDiv(Int64(bounds.minY), c)
        columns = Self.floorDiv(Int64(bounds.maxX), c) - originX + 1
        rows = Self.floorDiv(Int64(bounds.maxY), c) - originY + 1
        var counts = [Int32](repeating: 0, count: Int(columns * rows) + 1)
        for b in boxes { Self.forEach(b, cell: c, originX, originY, columns, rows) { counts[$0 + 1] += 1 } }
        for k in 1..<counts.count { counts[k] += counts[k - 1] }
        var fill = counts
        var items = [Int32](repeating: 0, count: Int(counts[counts.count - 1]))
        for (i, b) in boxes.enumerated() {
            Self.forEach(b, cell: c, originX, originY, columns, rows) { k in
                items[Int(fill[k])] = Int32(i)
                fill[k] += 1
            }
        }
        offsets = counts
        self.items = items
    }

    private static func size(_ b: GridBox) -> Int64 {
        max(Int64(b.maxX) - Int64(b.minX), Int64(b.maxY) - Int64(b.minY))
    }

    private static func covered(_ b: GridBox, cell c: Int64) -> Int64 {
        (floorDiv(Int64(b.maxX), c) - floorDiv(Int64(b.minX), c) + 1)
            * (floorDiv(Int64(b.maxY), c) - floorDiv(Int64(b.minY), c) + 1)
    }

    @inline(__always)
    private static func floorDiv(_ v: Int64, _ c: Int64) -> Int64 { v >= 0 ? v / c : -((-v + c - 1) / c) }

    /// Calls `body(cellIndex)` for the grid cells `b` covers (clipped to the grid).
    @inline(__always)
    private static func forEach(
        _ b: GridBox, cell c: Int64, _ ox: Int64, _ oy: Int64, _ columns: Int64, _ rows: Int64,
        _ body: (Int) -> Void
    ) {
        let x0 = max(0, floorDiv(Int64(b.minX), c) - ox), x1 = min(columns - 1, floorDiv(Int64(b.maxX), c) - ox)
        let y0 = max(0, floorDiv(Int64(b.minY), c) - oy), y1 = min(rows - 1, floorDiv(Int64(b.maxY), c) - oy)
        guard x0 <= x1, y0 <= y1 else { return }
        for cy in y0...y1 {
            for cx in x0...x1 { body(Int(cy * columns + cx)) }
        }
    }

    /// The index of the cell holding the point (x, y), which must lie inside the grid's bounds.
    func cellIndex(_ x: Int32, _ y: Int32) -> Int {
        Int((Self.floorDiv(Int64(y), cell) - originY) * columns + (Self.floorDiv(Int64(x), cell) - originX))
    }

    /// Calls `body(cellIndex, items)` for every non-empty cell `box` covers, row by row.
    func forEachCell(in box: GridBox, _ body: (Int, ArraySlice<Int32>) -> Void) {
        Self.forEach(box, cell: cell, originX, originY, columns, rows) { k in
            let lo = Int(offsets[k]), hi = Int(offsets[k + 1])
            if lo < hi { body(k, items[lo..<hi]) }
        }
    }
}
