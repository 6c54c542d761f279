/// One use of an arc by a ring: the arc's index and whether the ring runs against the arc's canonical direction.
struct ArcUse: Hashable {
    var arc: Int32
    var reversed: Bool
}

/// Step 2 of shared-border simplification: the rings of one layer in one tile cut into arcs at their nodes.
///
/// A vertex is a **node** when its occurrences in all rings have other than exactly two distinct neighbour
/// vertices (three or more: borders meet; one: a spike), when a ring turns back at it, or where a border meets
/// the clip rectangle: a vertex on the rectangle's edges with a ring edge that leaves them, and its corners.
/// (Points in the middle of a clip edge are not nodes: that straight run is simplified away.) Between two nodes a ring
/// follows an **arc**: a vertex that is not a node has the same two neighbours in every ring, so every ring that
/// contains an arc's first edge contains the whole arc. Each arc is stored once, in its canonical direction: the
/// direction whose first two points are smaller (by x, then y). A ring without nodes (an island, or a hole that is
/// its neighbour's whole outline) is one closed arc starting at its smallest point.
struct ArcGraph {
    /// Points of all arcs, concatenated, each arc in its canonical direction (a closed arc repeats its first point).
    var points: [TilePoint] = []
    /// `points[starts[a]..<starts[a + 1]]` is arc `a`.
    var starts: [Int] = [0]
    /// Rings using each arc.
    var useCount: [Int32] = []
    /// Per ring, the arcs it runs through, in ring order; nil for rings too short to simplify.
    var rings: [[ArcUse]?] = []
    /// Twice the signed area of each input ring (after junction noding).
    var ringAreas: [Int128] = []
    /// The distinct nodes.
    var nodes: [TilePoint] = []

    var arcCount: Int { starts.count - 1 }

    func range(ofArc a: Int) -> Range<Int> { starts[a]..<starts[a + 1] }

    private struct ArcKey: Hashable {
        var first: TilePoint
        var second: TilePoint
    }

    /// Neighbour summary of one vertex: up to two distinct neighbours, or "more".
    private struct Neighbours {
        var a = TilePoint(0, 0)
        var b = TilePoint(0, 0)
        var count: UInt8 = 0  // 0, 1, 2, or 3 for more than two
        var turnsBack = false
        var meetsClip = false

        mutating func add(_ prev: TilePoint, _ next: TilePoint) {
            add(prev)
            add(next)
            if prev == next { turnsBack = true }
        }

        private mutating func add(_ p: TilePoint) {
            switch count {
            case 0:
                a = p
                count = 1
            case 1 where p != a:
                b = p
                count = 2
            case 2 where p != a && p != b:
                count = 3
            default:
                break
            }
        }
    }

    /// Builds the arcs of `rings` (open rings, no consecutive duplicates, closing point removed).
    init(rings input: [[TilePoint]], clip: TileRect?) {
        var neighbours: [TilePoint: Neighbours] = [:]
        neighbours.reserveCapacity(input.reduce(0) { $0 + $1.count })
        for ring in input where ring.count >= 3 {
            let n = ring.count
            for i in 0..<n {
                let prev = ring[i == 0 ? n - 1 : i - 1]
                let next = ring[i + 1 == n ? 0 : i + 1]
                neighbours[ring[i], default: Neighbours()].add(prev, next)
                if let clip, clip.isOnBoundary(ring[i]),
                    clip.isCorner(ring[i]) || !clip.runsAlongBoundary(ring[i], prev)
                        || !clip.runsAlongBoundary(ring[i], next)
                {
                    neighbours[ring[i]]?.meetsClip = true
                }
            }
        }
        var nodeSet = Set<TilePoint>()
        func isNode(_ p: TilePoint) -> Bool {
            guard let nb = neighbours[p] else { return true }
            return nb.count != 2 || nb.turnsBack || nb.meetsClip
        }
        var keys: [ArcKey: Int32] = [:]
        for ring in input {
            ringAreas.append(doubledSignedArea(ring))
            guard ring.count >= 3 else {
                rings.append(nil)
                continue
            }
            let n = ring.count
            let nodeFlags = ring.map(isNode)
            var uses: [ArcUse] = []
            if let first = nodeFlags.firstIndex(of: true) {
                for (i, p) in ring.enumerated() where nodeFlags[i] { nodeSet.insert(p) }
                var k = first
                repeat {
                    var raw = [ring[k]]
                    var j = k
                    repeat {
                        j = j + 1 == n ? 0 : j + 1
                        raw.append(ring[j])
                    } while !nodeFlags[j]
                    uses.append(use(of: raw, keys: &keys))
                    k = j
                } while k != first
            } else {
                // A closed arc: canonical start at the smallest point, direction towards its smaller neighbour.
                var s = 0
                for i in 1..<n where TilePoint.precedes(ring[i], ring[s]) { s = i }
                var raw: [TilePoint] = []
                raw.reserveCapacity(n + 1)
                for i in 0...n { raw.append(ring[(s + i) % n]) }
                uses.append(use(of: raw, keys: &keys))
            }
            rings.append(uses)
        }
        nodes = nodeSet.sorted(by: TilePoint.precedes)
    }

    /// The arc `raw` runs through (node to node in ring order), stored on first sight.
    private mutating func use(of raw: [TilePoint], keys: inout [ArcKey: Int32]) -> ArcUse {
        let m = raw.count
        let forward = ArcKey(first: raw[0], second: raw[1])
        let backward = ArcKey(first: raw[m - 1], second: raw[m - 2])
        let reversed =
            TilePoint.precedes(backward.first, forward.first)
            || (backward.first == forward.first && TilePoint.precedes(backward.second, forward.second))
        let key = reversed ? backward : forward
        if let a = keys[key] {
            let r = range(ofArc: Int(a))
            // The same first edge always leads to the same arc; check the far end anyway (broken input).
            if r.count == m, points[r.upperBound - 1] == (reversed ? raw[0] : raw[m - 1]) {
                useCount[Int(a)] += 1
                return ArcUse(arc: a, reversed: reversed)
            }
        }
        let a = Int32(arcCount)
        if keys[key] == nil { keys[key] = a }
        if reversed { points.append(contentsOf: raw.reversed()) } else { points.append(contentsOf: raw) }
        starts.append(points.count)
        useCount.append(1)
        return ArcUse(arc: a, reversed: reversed)
    }
}
