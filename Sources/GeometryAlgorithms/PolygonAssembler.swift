import KartpackCore

/// A fix applied while building a geometry, reported as `code` (`closed_ring`, `reoriented_rings`, …).
public struct GeometryRepair: Equatable, Sendable {
    /// The stable diagnostic code.
    public var code: ReasonCode
    /// What was done.
    public var message: String

    /// Creates a repair record.
    public init(code: ReasonCode, message: String) {
        self.code = code
        self.message = message
    }
}

/// Either a geometry (with the repairs it needed) or a reason to skip the record.
public enum GeometryAssembly: Sendable {
    /// The geometry and the repairs it needed.
    case built(Geometry, [GeometryRepair])
    /// No geometry: a stable reason code and a message.
    case skipped(code: ReasonCode, message: String)
}

/// Turns the rings of one Polygon record into polygons by containment, not winding.
///
/// 1. Rings with fewer than 3 distinct points are dropped (`dropped_ring`); rings of zero area (all points on one
/// line, up to rounding) are dropped (`dropped_sliver`); unclosed rings are closed (`closed_ring`); consecutive
///    duplicate
///    points are removed when the rings are emitted (`removed_duplicates`).
/// 2. Rings are sorted by |area|, largest first. For each ring, the candidate containers are the larger rings whose
///    bounding box contains its bounding box (found with a `BoxTree`, so 100 000 rings are not O(n²)); tested from
///    the smallest up, the first one that contains a vertex of the ring (one not on the candidate's boundary) is
///    its parent. Depth = parent depth + 1: even depth is a shell, odd depth a hole of its parent shell.
/// 3. Shells are emitted in file order, each followed by its holes in file order (`ring_assignment` when this
///    reorders the rings). Orientation follows ESRI: shells clockwise, holes counter-clockwise with y up
///    (`reoriented_rings` when any ring was reversed).
///
/// A work budget bounds pathological inputs (e.g. 100 000 concentric rings): past it the record is skipped as
/// `too_complex` instead of running for minutes.
public enum PolygonAssembler {
    /// Units of work (bounding-box candidates plus edge tests) allowed per record.
    public static let workBudget = 50_000_000

    private struct Ring {
        var start: Int
        var count: Int
        var close: Bool
        var area: Double
        var box: Bounds
        var original: Int
    }

    /// Builds polygons from the rings of one record (`parts` index points in `xy`).
    public static func assemble(xy: [Double], parts: [Range<Int>]) -> GeometryAssembly {
        var repairs: [GeometryRepair] = []
        var rings: [Ring] = []
        var dropped = 0
        var slivers = 0
        var closed = 0
        for (index, part) in parts.enumerated() {
            let isClosed =
                part.count >= 2 && xy[2 * part.lowerBound] == xy[2 * (part.upperBound - 1)]
                && xy[2 * part.lowerBound + 1] == xy[2 * (part.upperBound - 1) + 1]
            let body = isClosed ? part.lowerBound..<(part.upperBound - 1) : part
            guard hasThreeDistinctPoints(xy, body) else {
                dropped += 1
                continue
            }
            let area = signedRingArea(xy[(2 * part.lowerBound)..<(2 * part.upperBound)])
            // Only rings whose points all lie on one line are slivers here (a symmetric bowtie also has a signed
            // area of 0); thin but real areas are the pipeline's call, in target units.
            guard !isCollinear(xy, body) else {
                slivers += 1
                continue
            }
            if !isClosed { closed += 1 }
            var box = Bounds.empty
            for i in part { box.include(x: xy[2 * i], y: xy[2 * i + 1]) }
            rings.append(
                Ring(start: part.lowerBound, count: part.count, close: !isClosed, area: area, box: box, original: index)
            )
        }
        if dropped > 0 {
            repairs.append(
                GeometryRepair(
                    code: .droppedRing, message: "dropped \(dropped) ring(s) with fewer than 3 distinct points"))
        }
        if slivers > 0 {
            repairs.append(
                GeometryRepair(code: .droppedSliver, message: "dropped \(slivers) ring(s) of zero area"))
        }
        if closed > 0 {
            repairs.append(GeometryRepair(code: .closedRing, message: "closed \(closed) unclosed ring(s)"))
        }
        guard !rings.isEmpty else {
            return .skipped(
                code: .emptyGeometry,
                message: slivers > 0 ? "no ring with a non-zero area" : "no ring with 3 or more distinct points")
        }

        // Classify by containment.
        var parent = [Int](repeating: -1, count: rings.count)
        var depth = [Int](repeating: 0, count: rings.count)
        if rings.count > 1 {
            let order = rings.indices.sorted {
                let a = abs(rings[$0].area)
                let b = abs(rings[$1].area)
                return a != b ? a > b : $0 < $1
            }
            var rank = [Int](repeating: 0, count: rings.count)
            for (k, r) in order.enumerated() { rank[r] = k }
            let tree = BoxTree(rings.map(\.box))
            var bands = [EdgeBands?](repeating: nil, count: rings.count)
            var work = 0
            var candidates: [Int] = []
            for r in order {
                candidates.removeAll(keepingCapacity: true)
                tree.forEachContaining(rings[r].box) { c in
                    work += 1
                    if rank[c] < rank[r] { candidates.append(c) }
                    return work < workBudget
                }
                guard work < workBudget else {
                    return .skipped(code: .tooComplex, message: "\(rings.count) rings nest too deeply to classify")
                }
                candidates.sort { rank[$0] > rank[$1] }
                for c in candidates {
                    let ring = rings[c]
                    let edges: EdgeBands
                    if let cached = bands[c] {
                        edges = cached
                    } else {
                        edges = EdgeBands(xy: xy, start: ring.start, count: ring.count, close: ring.close)
                        work += ring.count
                        bands[c] = edges
                    }
                    if contains(edges, xy: xy, ring: rings[r], work: &work) {
                        parent[r] = c
                        break
                    }
                    if work >= workBudget {
                        return .skipped(
                            code: .tooComplex, message: "\(rings.count) rings need too much work to classify")
                    }
                }
                depth[r] = parent[r] >= 0 ? depth[parent[r]] + 1 : 0
            }
        }

        // Emit shells in file order, each with its holes.
        var holesOf = [[Int]](repeating: [], count: rings.count)
        var shells: [Int] = []
        for r in rings.indices {
            if depth[r] % 2 == 0 { shells.append(r) } else { holesOf[parent[r]].append(r) }
        }
        var out = Geometry(
            kind: shells.count == 1 ? .polygon : .multiPolygon, xy: [], partStarts: [], polygonStarts: [])
        out.xy.reserveCapacity(xy.count + 2 * closed)
        var emitted: [Int] = []
        var reversed = 0
        var duplicates = 0
        func emit(_ r: Int, shell: Bool) {
            let ring = rings[r]
            out.partStarts.append(Int32(out.xy.count / 2))
            emitted.append(r)
            // Shells clockwise (negative area), holes counter-clockwise (positive area).
            let flip = shell ? ring.area > 0 : ring.area < 0
            if flip { reversed += 1 }
            var indices = Array(ring.start..<(ring.start + ring.count))
            if ring.close { indices.append(ring.start) }
            if flip { indices.reverse() }
            var previous: (Double, Double)?
            for i in indices {
                let p = (xy[2 * i], xy[2 * i + 1])
                if let previous, previous == p {
                    duplicates += 1
                    continue
                }
                previous = p
                out.xy.append(xy[2 * i])
                out.xy.append(xy[2 * i + 1])
            }
        }
        for s in shells {
            out.polygonStarts.append(Int32(out.partStarts.count))
            emit(s, shell: true)
            for h in holesOf[s] { emit(h, shell: false) }
        }
        if emitted != Array(rings.indices) {
            repairs.append(
                GeometryRepair(
                    code: .ringAssignment,
                    message: "rings reordered by containment into \(shells.count) polygon(s) with "
                        + "\(rings.count - shells.count) hole(s)"))
        }
        if duplicates > 0 {
            repairs.append(
                GeometryRepair(
                    code: .removedDuplicates, message: "removed \(duplicates) repeated consecutive point(s)"))
        }
        if reversed > 0 {
            repairs.append(
                GeometryRepair(
                    code: .reorientedRings,
                    message:
                        "reversed \(reversed) of \(rings.count) ring(s) to clockwise shells / counter-clockwise holes"))
        }
        return .built(out, repairs)
    }

    /// True when every point of the range lies on the line through its first two distinct points, up to rounding:
    /// the sine of the angle between that line and the direction to each point is at most `1e-9`.
    static func isCollinear(_ xy: [Double], _ range: Range<Int>) -> Bool {
        guard let first = range.first else { return true }
        let x0 = xy[2 * first]
        let y0 = xy[2 * first + 1]
        var direction: (x: Double, y: Double, length: Double)?
        for i in range {
            let dx = xy[2 * i] - x0
            let dy = xy[2 * i + 1] - y0
            let length = (dx * dx + dy * dy).squareRoot()
            guard length > 0 else { continue }
            guard let d = direction else {
                direction = (dx, dy, length)
                continue
            }
            if abs(d.x * dy - d.y * dx) > 1e-9 * d.length * length { return false }
        }
        return true
    }

    /// True when the range holds at least 3 different points.
    static func hasThreeDistinctPoints(_ xy: [Double], _ range: Range<Int>) -> Bool {
        var seen: [(Double, Double)] = []
        for i in range {
            let p = (xy[2 * i], xy[2 * i + 1])
            if !seen.contains(where: { $0 == p }) {
                seen.append(p)
                if seen.count == 3 { return true }
            }
        }
        return false
    }

    /// Whether ring `inner` lies inside the ring behind `edges`: decided by the first of its vertices that is not on
    /// the container's boundary (rings do not cross in valid data). When every tested vertex is on the boundary
    /// (identical rings), it is not contained.
    private static func contains(_ edges: EdgeBands, xy: [Double], ring inner: Ring, work: inout Int) -> Bool {
        let tries = min(inner.count, 32)
        for k in 0..<tries {
            // Spread the tested vertices over the ring.
            let i = inner.start + (k * inner.count) / tries
            switch edges.locate(x: xy[2 * i], y: xy[2 * i + 1], xy: xy, work: &work) {
            case .inside: return true
            case .outside: return false
            case .boundary: continue
            }
        }
        return false
    }
}

/// A ring's edges bucketed into horizontal bands, for point-in-ring tests that look at few edges.
struct EdgeBands {
    enum Location { case inside, outside, boundary }

    /// Point indices of the ring in order, closed (first repeated last).
    private let points: [Int]
    private let minY: Double
    private let bandHeight: Double
    private let bandCount: Int
    /// CSR layout: edges of band b are `edges[bandStart[b] ..< bandStart[b + 1]]` (edge k joins points k, k+1).
    private let bandStart: [Int]
    private let edges: [Int32]

    init(xy: [Double], start: Int, count: Int, close: Bool) {
        var pts = Array(start..<(start + count))
        if close { pts.append(start) }
        points = pts
        let edgeCount = pts.count - 1
        var lo = Double.infinity
        var hi = -Double.infinity
        for p in pts {
            lo = min(lo, xy[2 * p + 1])
            hi = max(hi, xy[2 * p + 1])
        }
        minY = lo
        var bands = edgeCount >= 16 ? max(1, edgeCount / 4) : 1
        func bandRange(_ k: Int, _ n: Int, _ h: Double) -> ClosedRange<Int> {
            let y0 = xy[2 * pts[k] + 1]
            let y1 = xy[2 * pts[k + 1] + 1]
            guard h > 0 else { return 0...0 }
            let a = min(n - 1, max(0, Int((min(y0, y1) - lo) / h)))
            let b = min(n - 1, max(0, Int((max(y0, y1) - lo) / h)))
            return a...b
        }
        // Fewer bands when long edges would make the buckets too big (total entries ≤ 8 × edges).
        while bands > 1 {
            let h = (hi - lo) / Double(bands)
            var total = 0
            for k in 0..<edgeCount { total += bandRange(k, bands, h).count }
            if total <= 8 * edgeCount { break }
            bands /= 2
        }
        bandCount = bands
        bandHeight = bands > 1 ? (hi - lo) / Double(bands) : 0
        var counts = [Int](repeating: 0, count: bands + 1)
        for k in 0..<edgeCount { for b in bandRange(k, bands, bandHeight) { counts[b + 1] += 1 } }
        for b in 0..<bands { counts[b + 1] += counts[b] }
        var fill = counts
        var list = [Int32](repeating: 0, count: counts[bands])
        for k in 0..<edgeCount {
            for b in bandRange(k, bands, bandHeight) {
                list[fill[b]] = Int32(k)
                fill[b] += 1
            }
        }
        bandStart = counts
        edges = list
    }

    /// Where a point lies relative to the ring (crossing-number test on the edges of its band).
    func locate(x: Double, y: Double, xy: [Double], work: inout Int) -> Location {
        let band = bandHeight > 0 ? min(bandCount - 1, max(0, Int((y - minY) / bandHeight))) : 0
        var inside = false
        for e in edges[bandStart[band]..<bandStart[band + 1]] {
            work += 1
            let a = points[Int(e)]
            let b = points[Int(e) + 1]
            let ax = xy[2 * a]
            let ay = xy[2 * a + 1]
            let bx = xy[2 * b]
            let by = xy[2 * b + 1]
            // On the edge?
            if min(ay, by) <= y, y <= max(ay, by), min(ax, bx) <= x, x <= max(ax, bx),
                (bx - ax) * (y - ay) - (by - ay) * (x - ax) == 0
            {
                return .boundary
            }
            if (ay > y) != (by > y) {
                let xCross = ax + (y - ay) * (bx - ax) / (by - ay)
                if x < xCross { inside.toggle() }
            }
        }
        return inside ? .inside : .outside
    }
}
