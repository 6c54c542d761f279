import KartpackCore

/// Redraws a region on a coarse grid of square blocks: a block is in when at least half of its centre line (the
/// horizontal line through the middle of the block) lies inside the region, and the blocks that are in become
/// rectilinear polygons that are valid on the integer grid by construction.
///
/// The last resort of the grid repair for a piece whose detail lies far below the grid (a dense saw-tooth or star
/// cut into thousands of overlapping slivers): exact repair would be super-linear, dropping parts would leave an
/// arbitrary pattern. Half coverage keeps about the region's area and outline at the block size.
///
/// Cost O(E + C log C + B) for E edges, C centre-line crossings and B blocks; `blockSize(for:)` picks the
/// smallest block (a power of two) that keeps C and B within `crossingBudget` and `blockBudget`. Validity: two
/// blocks that touch only at a corner get one of the other two blocks of their 2×2 window added (repeated until
/// no such window is left), so every boundary vertex has exactly one boundary edge in and one out: rings are
/// simple, never touch each other, and each hole lies inside the exterior of the blocks around it.
public enum BlockCoverage {
    /// Centre-line crossings allowed per call.
    public static let crossingBudget = 1 << 21
    /// Blocks allowed per call.
    public static let blockBudget = 1 << 21
    /// The smallest block side.
    public static let minimumBlock: Int64 = 4

    /// The smallest power-of-two block side (at least `minimumBlock`) for which the rings (open, interleaved x, y
    /// tile coordinates) stay within the budgets.
    public static func blockSize(for rings: [[Double]]) -> Int64 {
        var edges = 0
        var rise = 0.0
        var box = Box()
        for r in rings {
            let n = r.count / 2
            edges += n
            for i in 0..<n {
                let j = i + 1 == n ? 0 : i + 1
                rise += abs(r[2 * j + 1] - r[2 * i + 1])
                box.include(r[2 * i], r[2 * i + 1])
            }
        }
        var b = minimumBlock
        while b < 1 << 24 {
            let crossings = rise / Double(b) + Double(edges)
            let blocks = (box.width / Double(b) + 2) * (box.height / Double(b) + 2)
            if crossings <= Double(crossingBudget) && blocks <= Double(blockBudget) { break }
            b *= 2
        }
        return b
    }

    /// The polygons (exterior first, then its holes; rings open, exteriors positive signed area with y down) of
    /// the blocks of side `block` at least half covered by the even-odd region of `rings` (open, interleaved x, y
    /// tile coordinates). Block lines lie on multiples of `block`; the outermost are pulled in to the rings'
    /// integer bounds. Empty when no block is covered; nil when `cancellation` was set.
    public static func polygons(
        _ rings: [[Double]], block: Int64, cancellation: CancellationFlag = .process
    ) -> [[[TilePoint]]]? {
        var box = Box()
        for r in rings { for i in stride(from: 0, to: r.count - 1, by: 2) { box.include(r[i], r[i + 1]) } }
        guard box.minX <= box.maxX, box.minY <= box.maxY else { return [] }
        let b = Double(block)
        let loX = Int64(box.minX.rounded(.down))
        let hiX = Int64(box.maxX.rounded(.up))
        let loY = Int64(box.minY.rounded(.down))
        let hiY = Int64(box.maxY.rounded(.up))
        let col0 = floorDiv(loX, block)
        let row0 = floorDiv(loY, block)
        let w = Int(max(1, ceilDiv(hiX, block) - col0))
        let h = Int(max(1, ceilDiv(hiY, block) - row0))
        guard let rows = crossings(rings, block: b, row0: row0, rows: h, cancellation: cancellation) else { return nil }
        var grid = Bitmap(width: w, height: h)
        var coverage = [Double](repeating: 0, count: w)
        for r in 0..<h {
            if r & 63 == 0 && cancellation.isCancelled { return nil }
            var xs = rows[r]
            guard xs.count >= 2 else { continue }
            xs.sort()
            for k in coverage.indices { coverage[k] = 0 }
            var i = 0
            while i + 1 < xs.count {
                add(from: xs[i] - Double(col0) * b, to: xs[i + 1] - Double(col0) * b, block: b, into: &coverage)
                i += 2
            }
            for c in 0..<w where coverage[c] >= b / 2 { grid[c, r] = true }
        }
        guard grid.removeCornerContacts(cancellation) else { return nil }
        let lines = GridLines(col0: col0, row0: row0, block: block, lo: (loX, loY), hi: (hiX, hiY), size: (w, h))
        return grid.tracedPolygons(lines, cancellation)
    }

    /// Per block row, the x of every crossing of an edge with the row's centre line (half-open in y, so a vertex
    /// on the line counts once). Nil when cancelled.
    static func crossings(
        _ rings: [[Double]], block b: Double, row0: Int64, rows h: Int, cancellation: CancellationFlag
    ) -> [[Double]]? {
        var out = [[Double]](repeating: [], count: h)
        var work = 0
        for r in rings {
            let n = r.count / 2
            for i in 0..<n {
                work += 1
                if work & 0xFFFF == 0 && cancellation.isCancelled { return nil }
                let j = i + 1 == n ? 0 : i + 1
                let ax = r[2 * i]
                let ay = r[2 * i + 1]
                let bx = r[2 * j]
                let by = r[2 * j + 1]
                guard ay != by else { continue }
                let lo = min(ay, by)
                let hi = max(ay, by)
                // Rows whose centre yc = (row0 + r + ½)·b satisfies lo <= yc < hi.
                let first = max(0, Int(((lo / b) - 0.5 - Double(row0)).rounded(.up)))
                var row = first
                while row < h {
                    let yc = (Double(row0) + Double(row) + 0.5) * b
                    if yc >= hi { break }
                    if yc >= lo { out[row].append(ax + (yc - ay) * (bx - ax) / (by - ay)) }
                    row += 1
                }
            }
        }
        return out
    }

    /// Adds the part of [from, to) (block-grid x, from the first column) to each block's coverage.
    static func add(from a: Double, to z: Double, block b: Double, into coverage: inout [Double]) {
        guard z > a else { return }
        let w = coverage.count
        var c = max(0, Int((a / b).rounded(.down)))
        while c < w {
            let left = Double(c) * b
            let right = left + b
            if left >= z { break }
            coverage[c] += min(right, z) - max(left, a)
            c += 1
        }
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
    static func ceilDiv(_ a: Int64, _ b: Int64) -> Int64 { -floorDiv(-a, b) }

    struct Box {
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        var width: Double { maxX >= minX ? maxX - minX : 0 }
        var height: Double { maxY >= minY ? maxY - minY : 0 }

        mutating func include(_ x: Double, _ y: Double) {
            minX = min(minX, x)
            minY = min(minY, y)
            maxX = max(maxX, x)
            maxY = max(maxY, y)
        }
    }

    /// Where the block-grid lines lie in tile coordinates: multiples of `block`, the outermost pulled in to the
    /// region's integer bounds.
    struct GridLines {
        var col0: Int64
        var row0: Int64
        var block: Int64
        var lo: (Int64, Int64)
        var hi: (Int64, Int64)
        var size: (Int, Int)

        func point(_ gx: Int, _ gy: Int) -> TilePoint {
            var x = (col0 + Int64(gx)) * block
            var y = (row0 + Int64(gy)) * block
            if gx == 0 { x = max(x, lo.0) }
            if gx == size.0 { x = min(x, hi.0) }
            if gy == 0 { y = max(y, lo.1) }
            if gy == size.1 { y = min(y, hi.1) }
            return TilePoint(Int32(clamping: x), Int32(clamping: y))
        }
    }
}
