extension JunctionNoding {
    /// The junction candidates on the lines of long axis-parallel edges, sorted along each line. A clip edge of a
    /// coastline's piece passes through as many lattice points as the tile is wide, and few of them are vertices:
    /// its junctions, the candidates strictly between its ends, are found by a binary search on its line instead
    /// of a look-up per lattice point (issue 34). The same junctions, in the same order along the edge.
    struct LineCandidates {
        typealias Entry = (coordinate: Int32, id: Int32)
        /// The x of the vertical lines, sorted; `vertical[k]`: (y, id) of the candidates on `x == xs[k]`, by y.
        private var xs: [Int32] = []
        private var vertical: [[Entry]] = []
        /// The y of the horizontal lines, sorted; `horizontal[k]`: (x, id) of the candidates on `y == ys[k]`, by x.
        private var ys: [Int32] = []
        private var horizontal: [[Entry]] = []

        /// The candidates (`isCandidate[id]`, `ids`: the vertex ids of `rings`, as `VertexIds.ids`) on the lines of
        /// the queries `queries[q]` (edge `index` of ring `ring`) whose `steps[q]` is negative.
        init(
            _ rings: [[TilePoint]], ids: [Int32], isCandidate: [Bool], queries: [(ring: Int, index: Int)],
            steps: [Int32]
        ) {
            for (q, (r, i)) in queries.enumerated() where steps[q] < 0 {
                let a = rings[r][i], b = rings[r][i + 1 == rings[r].count ? 0 : i + 1]
                if a.x == b.x { xs.append(a.x) } else { ys.append(a.y) }
            }
            xs = Self.sortedUnique(xs)
            ys = Self.sortedUnique(ys)
            vertical = Array(repeating: [], count: xs.count)
            horizontal = Array(repeating: [], count: ys.count)
            var base = 0
            for ring in rings where ring.count >= 2 {
                for (k, p) in ring.enumerated() {
                    let id = ids[base + k]
                    guard isCandidate[Int(id)] else { continue }
                    if let l = Self.line(p.x, in: xs) { vertical[l].append((p.y, id)) }
                    if let l = Self.line(p.y, in: ys) { horizontal[l].append((p.x, id)) }
                }
                base += ring.count
            }
            // Equal coordinates on a line are the same point, with the same id: kept once.
            for l in vertical.indices { Self.sortUnique(&vertical[l]) }
            for l in horizontal.indices { Self.sortUnique(&horizontal[l]) }
        }

        /// Calls `body(point, id)` for the candidates strictly inside the axis-parallel edge `a`–`b` (whose line
        /// the queries named), from `a` towards `b`.
        func forEachInside(_ a: TilePoint, _ b: TilePoint, _ body: (TilePoint, Int32) -> Void) {
            if a.x == b.x {
                guard let l = Self.line(a.x, in: xs) else { return }
                Self.forEach(in: vertical[l], from: a.y, to: b.y) { body(TilePoint(a.x, $0), $1) }
            } else {
                guard let l = Self.line(a.y, in: ys) else { return }
                Self.forEach(in: horizontal[l], from: a.x, to: b.x) { body(TilePoint($0, a.y), $1) }
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

        /// The index of `v` in the sorted `lines`, nil when absent.
        @inline(__always)
        private static func line(_ v: Int32, in lines: [Int32]) -> Int? {
            guard let first = lines.first, let last = lines.last, first <= v, v <= last else { return nil }
            var lo = 0, hi = lines.count - 1
            while lo <= hi {
                let m = (lo + hi) / 2
                if lines[m] == v { return m }
                if lines[m] < v { lo = m + 1 } else { hi = m - 1 }
            }
            return nil
        }

        private static func sortedUnique(_ values: [Int32]) -> [Int32] {
            var out: [Int32] = []
            for v in values.sorted() where out.last != v { out.append(v) }
            return out
        }

        private static func sortUnique(_ list: inout [Entry]) {
            list.sort { $0.coordinate < $1.coordinate }
            var kept = 0
            for k in list.indices where kept == 0 || list[kept - 1].coordinate != list[k].coordinate {
                list[kept] = list[k]
                kept += 1
            }
            list.removeLast(list.count - kept)
        }
    }
}
