import KartpackCore

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
    /// The arcs rings run through, ring after ring, each in ring order (see `uses(ofRing:)`).
    private(set) var uses: [ArcUse] = []
    private var useStarts: [Int] = [0]
    private var usable: [Bool] = []
    /// Twice the signed area of each input ring (after junction noding).
    var ringAreas: [Int128] = []
    /// The distinct nodes.
    var nodes: [TilePoint] = []

    var arcCount: Int { starts.count - 1 }

    /// Number of input rings.
    var ringCount: Int { usable.count }

    /// The arcs ring `r` runs through, in ring order; nil for a ring too short to simplify.
    func uses(ofRing r: Int) -> ArraySlice<ArcUse>? { usable[r] ? uses[useStarts[r]..<useStarts[r + 1]] : nil }

    func range(ofArc a: Int) -> Range<Int> { starts[a]..<starts[a + 1] }

    /// The arc whose points hold index `k` of `points`.
    func arc(containing k: Int) -> Int {
        // The last arc starting at or before k (the first arc starts at 0).
        max(0, starts[..<arcCount].partitioningIndex { $0 > k } - 1)
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
        self.init(rings: input, ids: JunctionNoding.VertexIds(input), clip: clip)
    }

    /// Builds the arcs of `rings` (open rings, no consecutive duplicates, closing point removed) whose vertex ids
    /// are `vertexIds` (as `JunctionNoding` leaves them: the points are not hashed again).
    init(rings input: [[TilePoint]], ids vertexIds: JunctionNoding.VertexIds, clip: TileRect?) {
        // Per point id its neighbour summary.
        let total = input.reduce(0) { $0 + $1.count }
        var neighbours = [Neighbours](repeating: Neighbours(), count: vertexIds.count)
        var base = 0  // start of the current ring in `vertexIds.ids`
        for ring in input where ring.count >= 2 {
            let n = ring.count
            defer { base += n }
            guard n >= 3 else { continue }
            for i in 0..<n {
                let id = vertexIds.ids[base + i]
                let prev = ring[i == 0 ? n - 1 : i - 1]
                let next = ring[i + 1 == n ? 0 : i + 1]
                neighbours[Int(id)].add(prev, next)
                if let clip, clip.isOnBoundary(ring[i]),
                    clip.isCorner(ring[i]) || !clip.runsAlongBoundary(ring[i], prev)
                        || !clip.runsAlongBoundary(ring[i], next)
                {
                    neighbours[Int(id)].meetsClip = true
                }
            }
        }
        points.reserveCapacity(total + input.count)
        ringAreas.reserveCapacity(input.count)
        var nodeSeen = [Bool](repeating: false, count: neighbours.count)
        var keys = PointTable(capacity: input.count * 4)
        var keyArcs: [Int32] = []
        var flags: [Bool] = []
        var raw: [TilePoint] = []
        var rawIds: [Int32] = []
        base = 0
        for ring in input {
            ringAreas.append(doubledSignedArea(ring))
            guard ring.count >= 3 else {
                if ring.count == 2 { base += 2 }
                useStarts.append(uses.count)
                usable.append(false)
                continue
            }
            let n = ring.count
            let rid = vertexIds.ids[base..<(base + n)]
            base += n
            flags.removeAll(keepingCapacity: true)
            for id in rid {
                let nb = neighbours[Int(id)]
                flags.append(nb.count != 2 || nb.turnsBack || nb.meetsClip)
            }
            if let first = flags.firstIndex(of: true) {
                for i in 0..<n where flags[i] && !nodeSeen[Int(rid[rid.startIndex + i])] {
                    nodeSeen[Int(rid[rid.startIndex + i])] = true
                    nodes.append(ring[i])
                }
                var k = first
                repeat {
                    raw.removeAll(keepingCapacity: true)
                    rawIds.removeAll(keepingCapacity: true)
                    raw.append(ring[k])
                    rawIds.append(rid[rid.startIndex + k])
                    var j = k
                    repeat {
                        j = j + 1 == n ? 0 : j + 1
                        raw.append(ring[j])
                        rawIds.append(rid[rid.startIndex + j])
                    } while !flags[j]
                    uses.append(use(of: raw, ids: rawIds, keys: &keys, keyArcs: &keyArcs))
                    k = j
                } while k != first
            } else {
                // A closed arc: canonical start at the smallest point, direction towards its smaller neighbour.
                var s = 0
                for i in 1..<n where TilePoint.precedes(ring[i], ring[s]) { s = i }
                raw.removeAll(keepingCapacity: true)
                rawIds.removeAll(keepingCapacity: true)
                for i in 0...n {
                    raw.append(ring[(s + i) % n])
                    rawIds.append(rid[rid.startIndex + (s + i) % n])
                }
                uses.append(use(of: raw, ids: rawIds, keys: &keys, keyArcs: &keyArcs))
            }
            useStarts.append(uses.count)
            usable.append(true)
        }
        nodes.sort(by: TilePoint.precedes)
    }

    /// The arc `raw` runs through (node to node in ring order, `ids` its point ids), stored on first sight.
    /// `keys` maps the ids of an arc's first two points (canonical direction) to an index into `keyArcs`, the arc.
    private mutating func use(
        of raw: [TilePoint], ids: [Int32], keys: inout PointTable, keyArcs: inout [Int32]
    ) -> ArcUse {
        let m = raw.count
        let reversed =
            TilePoint.precedes(raw[m - 1], raw[0]) || (raw[m - 1] == raw[0] && TilePoint.precedes(raw[m - 2], raw[1]))
        let packed = reversed ? PointTable.key(ids[m - 1], ids[m - 2]) : PointTable.key(ids[0], ids[1])
        let (slot, new) = keys.insert(packed)
        if !new {
            let a = keyArcs[Int(slot)]
            let r = range(ofArc: Int(a))
            // The same first edge always leads to the same arc; check the far end anyway (broken input).
            if r.count == m, points[r.upperBound - 1] == (reversed ? raw[0] : raw[m - 1]) {
                useCount[Int(a)] += 1
                return ArcUse(arc: a, reversed: reversed)
            }
        }
        let a = Int32(arcCount)
        if new { keyArcs.append(a) }
        if reversed { points.append(contentsOf: raw.reversed()) } else { points.append(contentsOf: raw) }
        starts.append(points.count)
        useCount.append(1)
        return ArcUse(arc: a, reversed: reversed)
    }
}
