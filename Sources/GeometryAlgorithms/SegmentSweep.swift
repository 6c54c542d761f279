import KartpackCore

/// Whether the edges of a set of rings meet anywhere except where consecutive edges of one ring share their
/// vertex: a Shamos–Hoey sweep over integer coordinates (exact, orientations in `Int128`), O(n log n) whatever
/// the shape — a star whose long edges overlap each other's extents costs no more than a square.
///
/// The status line is a treap ordered by the edges' heights at the sweep position. Repeated vertices (a ring
/// passing through a point twice), a vertex on another edge, crossings and collinear overlaps (including a
/// spike folding back onto its own edge) all count as meeting.
public enum SegmentSweep {
    /// A vertex on the integer grid.
    public struct Vertex: Hashable, Sendable, Comparable {
        public var x: Int64
        public var y: Int64

        /// Creates a vertex.
        public init(x: Int64, y: Int64) {
            self.x = x
            self.y = y
        }

        public static func < (a: Vertex, b: Vertex) -> Bool { a.x != b.x ? a.x < b.x : a.y < b.y }
    }

    /// True when no two edges of the open `rings` (no closing duplicate, no repeated consecutive vertices,
    /// coordinates within ±2^60) meet except consecutive ones at their shared vertex; false also for a ring with
    /// fewer than 3 vertices. Nil when `cancellation` was set first.
    public static func edgesAreDisjoint(_ rings: [[Vertex]], cancellation: CancellationFlag = .process) -> Bool? {
        var sweep = Sweep()
        for ring in rings {
            guard ring.count >= 3 else { return false }
            sweep.add(ring)
        }
        return sweep.run(cancellation)
    }

    /// True when the closed or open ring of interleaved coordinates is simple (no vertex twice, no edge meeting
    /// another except its neighbours at their shared vertices) and has an area. Coordinates are put on the grid of
    /// the largest one's precision (its unit in the last place): exact for it, within half of that for the rest.
    /// Repeated consecutive points are ignored, as OGC does. Nil when `cancellation` was set first.
    public static func isSimpleRing(_ xy: ArraySlice<Double>, cancellation: CancellationFlag = .process) -> Bool? {
        var largest = 0.0
        for v in xy {
            guard v.isFinite else { return false }
            largest = max(largest, abs(v))
        }
        guard largest > 0 else { return false }
        // 2^52 × 2^(−exponent) puts the largest magnitude in [2^52, 2^53).
        let scale = Double(sign: .plus, exponent: 52 - largest.exponent, significand: 1)
        var ring: [Vertex] = []
        ring.reserveCapacity(xy.count / 2)
        var i = xy.startIndex
        while i + 1 < xy.endIndex {
            let v = Vertex(x: Int64((xy[i] * scale).rounded()), y: Int64((xy[i + 1] * scale).rounded()))
            if ring.last != v { ring.append(v) }
            i += 2
        }
        if ring.count > 1, ring.first == ring.last { ring.removeLast() }
        guard ring.count >= 3 else { return false }
        var twiceArea: Int128 = 0
        let o = ring[0]
        for k in 1..<(ring.count - 1) { twiceArea += Sweep.orient(o, ring[k], ring[k + 1]) }
        guard twiceArea != 0 else { return false }
        return edgesAreDisjoint([ring], cancellation: cancellation)
    }
}

/// The sweep's state: edges, the treap of active edges and the events.
private struct Sweep {
    /// Edge `e` runs from `a[e]` to `b[e]` (ring order); `ring`/`index`/`size` identify its neighbours.
    var a: [SegmentSweep.Vertex] = []
    var b: [SegmentSweep.Vertex] = []
    var ringStart: [Int32] = []
    var ringSize: [Int32] = []
    // Treap nodes (one per edge).
    var left: [Int32] = []
    var right: [Int32] = []
    var parent: [Int32] = []
    var priority: [UInt64] = []
    var root: Int32 = -1

    mutating func add(_ ring: [SegmentSweep.Vertex]) {
        let start = Int32(a.count)
        let n = ring.count
        for i in 0..<n {
            a.append(ring[i])
            b.append(ring[i + 1 == n ? 0 : i + 1])
            ringStart.append(start)
            ringSize.append(Int32(n))
        }
    }

    @inline(__always)
    static func orient(_ p: SegmentSweep.Vertex, _ q: SegmentSweep.Vertex, _ r: SegmentSweep.Vertex) -> Int128 {
        Int128(q.x - p.x) * Int128(r.y - p.y) - Int128(q.y - p.y) * Int128(r.x - p.x)
    }

    @inline(__always)
    static func sign(_ v: Int128) -> Int { v > 0 ? 1 : (v < 0 ? -1 : 0) }

    @inline(__always) func lo(_ e: Int) -> SegmentSweep.Vertex { a[e] < b[e] ? a[e] : b[e] }
    @inline(__always) func hi(_ e: Int) -> SegmentSweep.Vertex { a[e] < b[e] ? b[e] : a[e] }

    /// True when e and f are consecutive edges of one ring (they share exactly one vertex).
    func adjacent(_ e: Int, _ f: Int) -> Bool {
        guard ringStart[e] == ringStart[f] else { return false }
        let n = Int(ringSize[e])
        let i = e - Int(ringStart[e])
        let j = f - Int(ringStart[f])
        return (i + 1) % n == j || (j + 1) % n == i
    }

    /// True when edges e and f meet where they must not.
    func meet(_ e: Int, _ f: Int) -> Bool {
        if adjacent(e, f) {
            // They share one vertex v; they must not fold back onto each other.
            let (u, v, w) = b[e] == a[f] ? (a[e], b[e], b[f]) : (a[f], b[f], b[e])
            guard Self.orient(u, v, w) == 0 else { return false }
            return Int128(u.x - v.x) * Int128(w.x - v.x) + Int128(u.y - v.y) * Int128(w.y - v.y) > 0
        }
        let p1 = a[e]
        let p2 = b[e]
        let q1 = a[f]
        let q2 = b[f]
        let o1 = Self.sign(Self.orient(p1, p2, q1))
        let o2 = Self.sign(Self.orient(p1, p2, q2))
        let o3 = Self.sign(Self.orient(q1, q2, p1))
        let o4 = Self.sign(Self.orient(q1, q2, p2))
        if o1 * o2 < 0 && o3 * o4 < 0 { return true }
        func within(_ s: SegmentSweep.Vertex, _ t: SegmentSweep.Vertex, _ p: SegmentSweep.Vertex) -> Bool {
            min(s.x, t.x) <= p.x && p.x <= max(s.x, t.x) && min(s.y, t.y) <= p.y && p.y <= max(s.y, t.y)
        }
        return (o1 == 0 && within(p1, p2, q1)) || (o2 == 0 && within(p1, p2, q2)) || (o3 == 0 && within(q1, q2, p1))
            || (o4 == 0 && within(q1, q2, p2))
    }

    /// Where edge s (being inserted at its lower end) lies against active edge t: −1 below, 1 above, 0 when
    /// they meet there.
    func compare(_ s: Int, _ t: Int) -> Int {
        let p = lo(s)
        let tl = lo(t)
        let th = hi(t)
        let o = Self.sign(Self.orient(tl, th, p))
        if o != 0 { return o }
        // p lies on t. Allowed only for t's lower end shared with a neighbouring edge.
        guard p == tl, adjacent(s, t) else { return 0 }
        return Self.sign(Self.orient(tl, th, hi(s)))
    }

    mutating func run(_ cancellation: CancellationFlag) -> Bool? {
        let m = a.count
        left = [Int32](repeating: -1, count: m)
        right = left
        parent = left
        priority = (0..<m).map { i in
            // SplitMix64 of the edge index: deterministic, well spread.
            var z = UInt64(i) &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        // Events: 2e + 0 removes edge e at its upper end, 2e + 1 inserts it at its lower end. At one point the
        // removals go first. The vertex of an event identifies repeated vertices.
        var events = [Int](0..<(2 * m))
        func point(_ ev: Int) -> SegmentSweep.Vertex { ev & 1 == 1 ? lo(ev >> 1) : hi(ev >> 1) }
        events.sort { x, y in
            let p = point(x)
            let q = point(y)
            if p != q { return p < q }
            return (x & 1, x) < (y & 1, y)
        }
        if cancellation.isCancelled { return nil }
        /// The ring vertex an event sits on (edge e's a is vertex e, its b is vertex e + 1 of the ring).
        func vertex(_ ev: Int) -> Int {
            let e = ev >> 1
            let atA = point(ev) == a[e]
            if atA { return e }
            let start = Int(ringStart[e])
            return start + (e - start + 1) % Int(ringSize[e])
        }
        var lastPoint: SegmentSweep.Vertex?
        var lastVertex = -1
        for (step, ev) in events.enumerated() {
            if cancellation.isCancelled(atStep: step) { return nil }
            let p = point(ev)
            let v = vertex(ev)
            if p == lastPoint, v != lastVertex { return false }
            lastPoint = p
            lastVertex = v
            let e = ev >> 1
            if ev & 1 == 1 {
                guard let (below, above) = insert(e) else { return false }
                if below >= 0, meet(below, e) { return false }
                if above >= 0, meet(e, above) { return false }
            } else {
                let (below, above) = remove(e)
                if below >= 0, above >= 0, meet(below, above) { return false }
            }
        }
        return true
    }

    // MARK: Treap

    /// Inserts edge s; its neighbours below and above (−1 for none), or nil when it meets an edge on the way.
    mutating func insert(_ s: Int) -> (Int, Int)? {
        var cur = Int(root)
        var par = -1
        var below = -1
        var above = -1
        var goLeft = false
        while cur >= 0 {
            let c = compare(s, cur)
            if c == 0 { return nil }
            par = cur
            if c < 0 {
                above = cur
                goLeft = true
                cur = Int(left[cur])
            } else {
                below = cur
                goLeft = false
                cur = Int(right[cur])
            }
        }
        parent[s] = Int32(par)
        if par < 0 {
            root = Int32(s)
        } else if goLeft {
            left[par] = Int32(s)
        } else {
            right[par] = Int32(s)
        }
        while parent[s] >= 0, priority[s] > priority[Int(parent[s])] { rotateUp(s) }
        return (below, above)
    }

    /// Removes edge t; its former neighbours below and above.
    mutating func remove(_ t: Int) -> (Int, Int) {
        let below = neighbour(t, towardLeft: true)
        let above = neighbour(t, towardLeft: false)
        while left[t] >= 0, right[t] >= 0 {
            let l = Int(left[t])
            let r = Int(right[t])
            rotateUp(priority[l] > priority[r] ? l : r)
        }
        let child = left[t] >= 0 ? left[t] : right[t]
        let par = parent[t]
        if child >= 0 { parent[Int(child)] = par }
        if par < 0 {
            root = child
        } else if left[Int(par)] == Int32(t) {
            left[Int(par)] = child
        } else {
            right[Int(par)] = child
        }
        left[t] = -1
        right[t] = -1
        parent[t] = -1
        return (below, above)
    }

    /// The in-order predecessor (`towardLeft`) or successor of node x, −1 for none.
    func neighbour(_ x: Int, towardLeft: Bool) -> Int {
        let down = towardLeft ? left : right
        let up = towardLeft ? right : left
        if down[x] >= 0 {
            var c = Int(down[x])
            while up[c] >= 0 { c = Int(up[c]) }
            return c
        }
        var c = x
        var p = Int(parent[c])
        while p >= 0, down[p] == Int32(c) {
            c = p
            p = Int(parent[c])
        }
        return p
    }

    /// Rotates x above its parent.
    mutating func rotateUp(_ x: Int) {
        let p = Int(parent[x])
        let g = parent[p]
        if left[p] == Int32(x) {
            left[p] = right[x]
            if right[x] >= 0 { parent[Int(right[x])] = Int32(p) }
            right[x] = Int32(p)
        } else {
            right[p] = left[x]
            if left[x] >= 0 { parent[Int(left[x])] = Int32(p) }
            left[x] = Int32(p)
        }
        parent[p] = Int32(x)
        parent[x] = g
        if g < 0 {
            root = Int32(x)
        } else if left[Int(g)] == Int32(p) {
            left[Int(g)] = Int32(x)
        } else {
            right[Int(g)] = Int32(x)
        }
    }
}
