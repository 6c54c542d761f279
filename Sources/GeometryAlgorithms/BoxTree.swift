import KartpackCore

/// A static packed R-tree (sort-tile-recursive, 16 entries per node) over bounding boxes, answering "which boxes
/// contain this box" in about O(log n + k). Used to find the rings that may contain a ring without comparing all
/// pairs.
struct BoxTree {
    private static let nodeSize = 16
    /// `levels[0]` holds the item boxes in tree order; each higher level holds the union of 16 entries below.
    private var levels: [[Bounds]] = []
    /// Item ids in tree order (parallel to `levels[0]`).
    private var ids: [Int] = []

    init(_ boxes: [Bounds]) {
        let n = boxes.count
        guard n > 0 else { return }
        let cx = boxes.map { ($0.minX + $0.maxX) / 2 }
        let cy = boxes.map { ($0.minY + $0.maxY) / 2 }
        var order = Array(0..<n)
        order.sort { cx[$0] != cx[$1] ? cx[$0] < cx[$1] : $0 < $1 }
        let leafCount = (n + Self.nodeSize - 1) / Self.nodeSize
        let slices = max(1, Int(Double(leafCount).squareRoot().rounded(.up)))
        let perSlice = slices * Self.nodeSize
        var start = 0
        while start < n {
            let end = min(n, start + perSlice)
            order[start..<end].sort { cy[$0] != cy[$1] ? cy[$0] < cy[$1] : $0 < $1 }
            start = end
        }
        ids = order
        levels.append(order.map { boxes[$0] })
        while let last = levels.last, last.count > 1 {
            var up: [Bounds] = []
            up.reserveCapacity((last.count + Self.nodeSize - 1) / Self.nodeSize)
            var i = 0
            while i < last.count {
                var b = Bounds.empty
                for j in i..<min(last.count, i + Self.nodeSize) { b.include(last[j]) }
                up.append(b)
                i += Self.nodeSize
            }
            levels.append(up)
        }
    }

    /// Calls `body` with the id of every box that contains `query`; stops when `body` returns false.
    func forEachContaining(_ query: Bounds, _ body: (Int) -> Bool) {
        guard let top = levels.indices.last else { return }
        var stack: [(level: Int, index: Int)] = []
        for i in levels[top].indices { stack.append((top, i)) }
        while let (level, index) = stack.popLast() {
            guard levels[level][index].contains(query) else { continue }
            if level == 0 {
                if !body(ids[index]) { return }
            } else {
                let lo = index * Self.nodeSize
                let hi = min(levels[level - 1].count, lo + Self.nodeSize)
                for c in lo..<hi { stack.append((level - 1, c)) }
            }
        }
    }
}
