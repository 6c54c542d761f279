import KartpackCore

extension BlockCoverage {
    /// A grid of blocks, in or out, with a border of out blocks around it.
    struct Bitmap {
        let width: Int
        let height: Int
        private var bits: [Bool]

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            bits = [Bool](repeating: false, count: (width + 2) * (height + 2))
        }

        /// Block (c, r); -1 and width/height are the border.
        subscript(c: Int, r: Int) -> Bool {
            get { bits[(r + 1) * (width + 2) + c + 1] }
            set { bits[(r + 1) * (width + 2) + c + 1] = newValue }
        }

        /// Adds blocks until no 2×2 window holds exactly two diagonal blocks. Blocks are only added, so this ends;
        /// the added block is always inside the grid (it shares a row and a column with the two diagonal ones).
        /// False when cancelled.
        mutating func removeCornerContacts(_ cancellation: CancellationFlag) -> Bool {
            var changed = true
            while changed {
                if cancellation.isCancelled { return false }
                changed = false
                for r in -1..<height {
                    for c in -1..<width {
                        let a = self[c, r]
                        let b = self[c + 1, r]
                        let l = self[c, r + 1]
                        let d = self[c + 1, r + 1]
                        if a && d && !b && !l {
                            self[c + 1, r] = true
                            changed = true
                        } else if b && l && !a && !d {
                            self[c, r] = true
                            changed = true
                        }
                    }
                }
            }
            return true
        }

        /// The boundary of the blocks that are in, as polygons (see `BlockCoverage.polygons`). Nil when cancelled
        /// or when a boundary vertex had two ways out (cannot happen after `removeCornerContacts`).
        func tracedPolygons(_ lines: GridLines, _ cancellation: CancellationFlag) -> [[[TilePoint]]]? {
            let vw = width + 1
            var next = [Int32](repeating: -1, count: vw * (height + 1))
            func link(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> Bool {
                let v = y0 * vw + x0
                guard next[v] < 0 else { return false }
                next[v] = Int32(y1 * vw + x1)
                return true
            }
            for r in 0..<height {
                for c in 0..<width where self[c, r] {
                    if !self[c, r - 1] { guard link(c, r, c + 1, r) else { return nil } }
                    if !self[c + 1, r] { guard link(c + 1, r, c + 1, r + 1) else { return nil } }
                    if !self[c, r + 1] { guard link(c + 1, r + 1, c, r + 1) else { return nil } }
                    if !self[c - 1, r] { guard link(c, r + 1, c, r) else { return nil } }
                }
            }
            var components = Components(self)
            var exteriors: [(ring: [TilePoint], component: Int)] = []
            var holes: [Int: [[TilePoint]]] = [:]
            for start in next.indices where next[start] >= 0 {
                if cancellation.isCancelled { return nil }
                var ring: [(Int, Int)] = []
                var v = start
                repeat {
                    ring.append((v % vw, v / vw))
                    let n = Int(next[v])
                    next[v] = -1
                    v = n
                } while v != start && v >= 0
                guard v == start, ring.count >= 4 else { return nil }
                let cell = Self.cellInside(from: ring[0], to: ring[1])
                let component = components.root(cell.0 + cell.1 * width)
                let points = Self.corners(ring).map { lines.point($0.0, $0.1) }
                if doubledSignedArea(points) > 0 {
                    exteriors.append((points, component))
                } else {
                    holes[component, default: []].append(points)
                }
            }
            return exteriors.map { [$0.ring] + (holes[$0.component] ?? []) }
        }

        /// The block on the inner side of the boundary edge p→q (the right-hand side, y down).
        static func cellInside(from p: (Int, Int), to q: (Int, Int)) -> (Int, Int) {
            if q.0 > p.0 { return (p.0, p.1) }
            if q.1 > p.1 { return (p.0 - 1, p.1) }
            if q.0 < p.0 { return (p.0 - 1, p.1 - 1) }
            return (p.0, p.1 - 1)
        }

        /// The vertices of a closed rectilinear path where it turns.
        static func corners(_ ring: [(Int, Int)]) -> [(Int, Int)] {
            let n = ring.count
            var out: [(Int, Int)] = []
            for i in 0..<n {
                let p = ring[(i + n - 1) % n]
                let q = ring[i]
                let r = ring[(i + 1) % n]
                let straight = (p.0 == q.0 && q.0 == r.0) || (p.1 == q.1 && q.1 == r.1)
                if !straight { out.append(q) }
            }
            return out
        }
    }

    /// The 4-connected components of the blocks that are in (union–find with path halving).
    struct Components {
        private var parent: [Int32]

        init(_ grid: Bitmap) {
            let w = grid.width
            parent = Array(0..<Int32(w * grid.height))
            for r in 0..<grid.height {
                for c in 0..<w where grid[c, r] {
                    if grid[c - 1, r] { union(r * w + c, r * w + c - 1) }
                    if grid[c, r - 1] { union(r * w + c, (r - 1) * w + c) }
                }
            }
        }

        mutating func root(_ i: Int) -> Int {
            var i = i
            while Int(parent[i]) != i {
                parent[i] = parent[Int(parent[i])]
                i = Int(parent[i])
            }
            return i
        }

        private mutating func union(_ a: Int, _ b: Int) {
            let ra = root(a)
            let rb = root(b)
            if ra != rb { parent[max(ra, rb)] = Int32(min(ra, rb)) }
        }
    }
}
