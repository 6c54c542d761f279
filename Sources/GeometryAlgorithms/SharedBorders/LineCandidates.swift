extension JunctionNoding {
    /// The junction candidates on the four lines of the clip rectangle, sorted along each line. A clip edge of a
    /// coastline's piece passes through as many lattice points as the tile is wide, and few of them are vertices:
    /// its junctions, the candidates strictly between its ends, are found by a binary search on its line instead
    /// of a look-up per lattice point (issue 34). The same junctions, in the same order along the edge.
    struct LineCandidates {
        typealias Entry = (coordinate: Int32, id: Int32)
        let clip: TileRect
        /// (y, id) of the candidates on `x == clip.minX` and on `x == clip.maxX`; (x, id) on `y == clip.minY` and on
        /// `y == clip.maxY`. Sorted by `sort()`.
        private var left: [Entry] = []
        private var right: [Entry] = []
        private var top: [Entry] = []
        private var bottom: [Entry] = []

        init(clip: TileRect) { self.clip = clip }

        /// Files candidate `p` (vertex id `id`) under the clip lines it lies on: call once per candidate.
        @inline(__always)
        mutating func add(_ p: TilePoint, id: Int32) {
            if p.x == clip.minX { left.append((p.y, id)) }
            if p.x == clip.maxX { right.append((p.y, id)) }
            if p.y == clip.minY { top.append((p.x, id)) }
            if p.y == clip.maxY { bottom.append((p.x, id)) }
        }

        /// Sorts each line's candidates along it (each point was added once, so coordinates differ).
        mutating func sort() {
            left.sort { $0.coordinate < $1.coordinate }
            right.sort { $0.coordinate < $1.coordinate }
            top.sort { $0.coordinate < $1.coordinate }
            bottom.sort { $0.coordinate < $1.coordinate }
        }

        /// Whether the edge `a`–`b` runs along a line of the clip rectangle.
        @inline(__always)
        func holds(_ a: TilePoint, _ b: TilePoint) -> Bool {
            (a.x == b.x && (a.x == clip.minX || a.x == clip.maxX))
                || (a.y == b.y && (a.y == clip.minY || a.y == clip.maxY))
        }

        /// Calls `body(point, id)` for the candidates strictly inside the edge `a`–`b` (one that `holds`), from `a`
        /// towards `b`.
        func forEachInside(_ a: TilePoint, _ b: TilePoint, _ body: (TilePoint, Int32) -> Void) {
            if a.x == b.x {
                Self.forEach(in: a.x == clip.minX ? left : right, from: a.y, to: b.y) { body(TilePoint(a.x, $0), $1) }
            } else {
                Self.forEach(in: a.y == clip.minY ? top : bottom, from: a.x, to: b.x) { body(TilePoint($0, a.y), $1) }
            }
        }

        /// The entries of `list` strictly between `from` and `to`, in that direction.
        private static func forEach(in list: [Entry], from: Int32, to: Int32, _ body: (Int32, Int32) -> Void) {
            let lo = min(from, to), hi = max(from, to)
            var start = 0, end = list.count  // the first entry past `lo`
            while start < end {
                let m = (start + end) / 2
                if list[m].coordinate <= lo { start = m + 1 } else { end = m }
            }
            end = start
            while end < list.count && list[end].coordinate < hi { end += 1 }
            if from < to {
                for k in start..<end { body(list[k].coordinate, list[k].id) }
            } else {
                for k in (start..<end).reversed() { body(list[k].coordinate, list[k].id) }
            }
        }
    }
}
