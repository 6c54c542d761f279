import GeometryAlgorithms

/// One feature: polygons, each `[exterior, holes…]`, rings open.
typealias CoverageFeature = [[[TilePoint]]]

/// Measures a polygon coverage on the tile grid, independently of the simplifier's own code.
enum CoverageMeasure {
    /// The validity the tile phase checks after quantization (`VectorTile.Quantizer.isValidOnGrid`), restated
    /// with `RingValidator`: all rings simple and mutually disjoint (not even touching), each hole inside its
    /// exterior.
    static func isValidOnGrid(_ polygons: CoverageFeature) -> Bool {
        let all = polygons.flatMap { $0 }
        if all.isEmpty { return true }
        if RingValidator.hasIntersections(all) { return false }
        for rings in polygons where rings.count > 1 {
            for hole in rings.dropFirst() {
                guard let v = hole.first, RingValidator.locate(v, in: rings[0]) == .inside else { return false }
            }
        }
        return true
    }

    /// Twice the area a feature covers: per polygon |exterior| − Σ |holes| (exact, any ring orientation).
    static func doubledArea(_ f: CoverageFeature) -> Int128 {
        var sum: Int128 = 0
        for rings in f {
            for (k, r) in rings.enumerated() {
                let a = doubledSignedArea(r)
                sum += k == 0 ? abs(a) : -abs(a)
            }
        }
        return sum
    }

    /// The area covered by at least one feature and the area covered by two or more (overlap), by a scanline over
    /// every slab between consecutive vertex rows: inside a slab no vertex lies, so each covered length is linear
    /// in y and its value at the slab's middle row times the slab height is exact (up to the Double sums).
    /// Each feature's inside is even–odd over its own rings, so ring orientation does not matter.
    static func coverage(_ features: [CoverageFeature]) -> (covered: Double, overlap: Double) {
        struct Edge {
            var lo: TilePoint  // smaller y
            var hi: TilePoint
            var feature: Int
        }
        var edges: [Edge] = []
        var rows = Set<Int32>()
        for (f, feature) in features.enumerated() {
            for rings in feature {
                for r in rings {
                    for (i, a) in r.enumerated() {
                        let b = r[(i + 1) % r.count]
                        rows.insert(a.y)
                        guard a.y != b.y else { continue }
                        let (lo, hi) = a.y < b.y ? (a, b) : (b, a)
                        edges.append(Edge(lo: lo, hi: hi, feature: f))
                    }
                }
            }
        }
        edges.sort { ($0.lo.y, $0.hi.y) < ($1.lo.y, $1.hi.y) }
        let ys = rows.sorted()
        var covered = 0.0
        var overlap = 0.0
        var next = 0
        var active: [Edge] = []
        for s in 0..<max(0, ys.count - 1) {
            let y0 = ys[s], y1 = ys[s + 1]
            active.removeAll { $0.hi.y <= y0 }
            while next < edges.count, edges[next].lo.y <= y0 {
                if edges[next].hi.y > y0 { active.append(edges[next]) }
                next += 1
            }
            let ym = (Double(y0) + Double(y1)) / 2
            // Crossing x per edge, computed from the edge's canonical end order so shared edges agree exactly.
            var byFeature: [Int: [Double]] = [:]
            for e in active {
                let t = (ym - Double(e.lo.y)) / (Double(e.hi.y) - Double(e.lo.y))
                let x = Double(e.lo.x) + t * (Double(e.hi.x) - Double(e.lo.x))
                byFeature[e.feature, default: []].append(x)
            }
            // Interval events: +1 at each feature interval's start, −1 at its end; ends first on equal x.
            var events: [(x: Double, delta: Int)] = []
            for xs in byFeature.values {
                let sorted = xs.sorted()
                var k = 0
                while k + 1 < sorted.count {
                    events.append((sorted[k], 1))
                    events.append((sorted[k + 1], -1))
                    k += 2
                }
            }
            events.sort { $0.x != $1.x ? $0.x < $1.x : $0.delta < $1.delta }
            var depth = 0
            var lastX = 0.0
            let h = Double(y1 - y0)
            for e in events {
                if depth >= 1 { covered += (e.x - lastX) * h }
                if depth >= 2 { overlap += (e.x - lastX) * h }
                depth += e.delta
                lastX = e.x
            }
        }
        return (covered, overlap)
    }

    /// How many ring sides use each undirected edge, and of which features.
    static func edgeUses(_ features: [CoverageFeature]) -> [Edge: [Int]] {
        var uses: [Edge: [Int]] = [:]
        for (f, feature) in features.enumerated() {
            for rings in feature {
                for r in rings {
                    for (i, a) in r.enumerated() { uses[Edge(a, r[(i + 1) % r.count]), default: []].append(f) }
                }
            }
        }
        return uses
    }

    /// An undirected edge.
    struct Edge: Hashable, CustomStringConvertible {
        var p: TilePoint
        var q: TilePoint

        init(_ a: TilePoint, _ b: TilePoint) {
            if (a.x, a.y) <= (b.x, b.y) {
                p = a
                q = b
            } else {
                p = b
                q = a
            }
        }

        var description: String { "\(p)–\(q)" }
    }

    static func vertexCount(_ features: [CoverageFeature]) -> Int {
        features.reduce(0) { $0 + $1.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } } }
    }
}

/// Plain Douglas–Peucker per ring (start point and the point farthest from it fixed), the reference for vertex
/// counts.
enum PlainDouglasPeucker {
    static func simplified(_ ring: [TilePoint], tolerance: Double) -> [TilePoint] {
        let n = ring.count
        guard n > 3 else { return ring }
        var keep = [Bool](repeating: false, count: n + 1)
        let pts = ring + [ring[0]]
        var far = 1
        var best = -1.0
        for i in 1..<n {
            let dx = Double(pts[i].x) - Double(pts[0].x), dy = Double(pts[i].y) - Double(pts[0].y)
            if dx * dx + dy * dy > best {
                best = dx * dx + dy * dy
                far = i
            }
        }
        keep[0] = true
        keep[far] = true
        var spans = [(0, far), (far, n)]
        while let (a, b) = spans.popLast() {
            guard b > a + 1 else { continue }
            var worst = a, worstD = -1.0
            for i in (a + 1)..<b {
                let d = distance2(pts[i], pts[a], pts[b])
                if d > worstD {
                    worstD = d
                    worst = i
                }
            }
            if worstD > tolerance * tolerance {
                keep[worst] = true
                spans += [(a, worst), (worst, b)]
            }
        }
        return (0..<n).filter { keep[$0] }.map { pts[$0] }
    }

    private static func distance2(_ p: TilePoint, _ a: TilePoint, _ b: TilePoint) -> Double {
        let dx = Double(b.x) - Double(a.x), dy = Double(b.y) - Double(a.y)
        let l2 = dx * dx + dy * dy
        var t = l2 > 0 ? ((Double(p.x) - Double(a.x)) * dx + (Double(p.y) - Double(a.y)) * dy) / l2 : 0
        t = min(1, max(0, t))
        let cx = Double(a.x) + t * dx - Double(p.x), cy = Double(a.y) + t * dy - Double(p.y)
        return cx * cx + cy * cy
    }
}
