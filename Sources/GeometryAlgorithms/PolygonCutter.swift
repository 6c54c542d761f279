import KartpackCore

/// The work of `RectangleClipper.clipPolygons` for one polygon at a time (see there for the method).
struct PolygonCutter {
    let rect: Bounds
    let cancellation: CancellationFlag
    private var steps = 0

    init(rect: Bounds, cancellation: CancellationFlag) {
        self.rect = rect
        self.cancellation = cancellation
    }

    enum Outcome {
        /// Polygons (exterior counter-clockwise first, then holes clockwise; rings open).
        case pieces([[[Point2]]])
        case inconsistent
        case cancelled
    }

    /// How a ring meets the rectangle.
    private enum RingStatus {
        /// Wholly inside (it may touch the boundary only where it passes straight through a vertex there): kept.
        case inside
        /// It runs through the interior and left chains.
        case crossing
        /// It never enters the interior.
        case outside
    }

    /// The chains of one polygon in flat storage: chain `c` is `points[starts[c]..<starts[c + 1]]`.
    private struct Chains {
        var points: [Point2] = []
        var starts: [Int] = [0]
        /// The input ring each chain comes from.
        var rings: [Int] = []
        var count: Int { rings.count }
        func range(_ c: Int) -> Range<Int> { starts[c]..<starts[c + 1] }
    }

    /// A point of the rectangle's boundary: a chain's entry or exit, or a corner.
    private struct BoundaryItem {
        enum Kind: UInt8 { case corner, entry, exit }
        /// 0 bottom, 1 right, 2 top, 3 left; corners start their side.
        var side: Int
        /// Position along the side, increasing counter-clockwise.
        var along: Double
        /// Pseudo-angle (0…2, monotone in the angle 0…π) between the side's counter-clockwise direction and the
        /// chain's first (entry) or last (exit, reversed) segment; ties at one position go by decreasing angle.
        var angle: Double
        var kind: Kind
        /// The chain, or the corner's index 0–3.
        var index: Int
    }

    // MARK: One polygon

    mutating func cut(_ input: [[Point2]]) -> Outcome {
        guard var shell = input.first, shell.count >= 3 else { return .pieces([]) }
        let shellArea = RectangleClipper.signedArea(shell)
        guard shellArea != 0 else { return .pieces([]) }
        if shellArea < 0 { shell.reverse() }
        var rings = [shell]
        for var hole in input.dropFirst() where hole.count >= 3 {
            let a = RectangleClipper.signedArea(hole)
            guard a != 0 else { continue }
            if a > 0 { hole.reverse() }
            rings.append(hole)
        }
        var chains = Chains()
        var status: [RingStatus] = []
        for (k, ring) in rings.enumerated() {
            guard let s = walk(ring, index: k, into: &chains) else { return .cancelled }
            status.append(s)
        }
        let insideHoles = (1..<rings.count).filter { status[$0] == .inside }.map { rings[$0] }
        if chains.count == 0 {
            switch status[0] {
            case .inside:
                return .pieces([rings])
            case .crossing:
                return .inconsistent
            case .outside:
                // The rectangle's interior is wholly in or out of each ring that misses it.
                let centre = Point2(x: (rect.minX + rect.maxX) / 2, y: (rect.minY + rect.maxY) / 2)
                guard RectangleClipper.locate(centre, in: shell) == .inside else { return .pieces([]) }
                for k in 1..<max(1, rings.count) where status[k] == .outside {
                    if RectangleClipper.locate(centre, in: rings[k]) == .inside { return .pieces([]) }
                }
                let box = [
                    Point2(x: rect.minX, y: rect.minY), Point2(x: rect.maxX, y: rect.minY),
                    Point2(x: rect.maxX, y: rect.maxY), Point2(x: rect.minX, y: rect.maxY),
                ]
                return .pieces([[box] + insideHoles])
            }
        }
        guard let joined = reconnect(chains) else { return cancellation.isCancelled ? .cancelled : .inconsistent }
        return assemble(shells: joined.shells, holes: joined.holes + insideHoles)
    }

    // MARK: Walking a ring

    /// Cuts one ring (interior on its left) into chains; nil when cancelled.
    private mutating func walk(_ ring: [Point2], index k: Int, into chains: inout Chains) -> RingStatus? {
        let n = ring.count
        // Start where the ring enters, touches the boundary or runs outside, so no chain wraps past the start.
        var start = -1
        for i in 0..<n {
            steps += 1
            if cancellation.isCancelled(atStep: steps) { return nil }
            let a = ring[i]
            if onBoundary(a) { start = i; break }
            guard let s = interiorPart(a, ring[i + 1 == n ? 0 : i + 1]), !s.entered else { start = i; break }
        }
        guard start >= 0 else { return .inside }
        let before = chains.count
        var open = false
        func close() {
            open = false
            if chains.points.count - chains.starts[chains.starts.count - 1] < 2 {
                chains.points.removeSubrange(chains.starts[chains.starts.count - 1]...)
            } else {
                chains.starts.append(chains.points.count)
                chains.rings.append(k)
            }
        }
        func add(_ p: Point2) {
            if chains.points.last != p || !open { chains.points.append(p) }
        }
        for step in 0..<n {
            steps += 1
            if cancellation.isCancelled(atStep: steps) { return nil }
            let i = start + step < n ? start + step : start + step - n
            let a = ring[i]
            let b = ring[i + 1 == n ? 0 : i + 1]
            if let s = interiorPart(a, b) {
                if open && !s.entered && !onBoundary(a) {
                    add(s.q)
                } else {
                    if open { close() }
                    add(s.p)
                    open = true
                    add(s.q)
                }
                if s.exited { close() }
            } else if open {
                close()
            }
        }
        if open { close() }
        return chains.count > before ? .crossing : .outside
    }

    /// True when `p` lies on one of the rectangle's side lines (callers only ask for points in the rectangle).
    @inline(__always)
    private func onBoundary(_ p: Point2) -> Bool {
        p.x == rect.minX || p.x == rect.maxX || p.y == rect.minY || p.y == rect.maxY
    }

    /// The part of segment a→b that runs through the rectangle's interior (Liang–Barsky), from `p` to `q`;
    /// `entered`/`exited` when `p`/`q` are crossings of the boundary (snapped onto it) rather than a/b. Nil when
    /// the segment misses the interior (outside, along a side, or through a corner only).
    @inline(__always)
    private func interiorPart(_ a: Point2, _ b: Point2) -> (p: Point2, q: Point2, entered: Bool, exited: Bool)? {
        let dx = b.x - a.x
        let dy = b.y - a.y
        var t0 = 0.0
        var t1 = 1.0
        var entrySide = -1
        var exitSide = -1
        /// One side's constraint `p·t <= q`; false when the segment misses the rectangle.
        @inline(__always) func limit(_ p: Double, _ q: Double, _ side: Int) -> Bool {
            if p == 0 { return q >= 0 }
            let t = q / p
            if p < 0 {
                if t > t1 { return false }
                if t > t0 {
                    t0 = t
                    entrySide = side
                }
            } else {
                if t < t0 { return false }
                if t < t1 {
                    t1 = t
                    exitSide = side
                }
            }
            return true
        }
        // x >= minX (left, 3), x <= maxX (right, 1), y >= minY (bottom, 0), y <= maxY (top, 2).
        guard limit(-dx, a.x - rect.minX, 3), limit(dx, rect.maxX - a.x, 1), limit(-dy, a.y - rect.minY, 0),
            limit(dy, rect.maxY - a.y, 2)
        else { return nil }
        guard t0 < t1 else { return nil }
        let p = entrySide < 0 ? a : snap(Point2(x: a.x + t0 * dx, y: a.y + t0 * dy), side: entrySide)
        let q = exitSide < 0 ? b : snap(Point2(x: a.x + t1 * dx, y: a.y + t1 * dy), side: exitSide)
        guard p != q else { return nil }
        if (p.x == rect.minX && q.x == rect.minX) || (p.x == rect.maxX && q.x == rect.maxX)
            || (p.y == rect.minY && q.y == rect.minY) || (p.y == rect.maxY && q.y == rect.maxY)
        {
            return nil
        }
        return (p, q, entrySide >= 0, exitSide >= 0)
    }

    /// A computed crossing put exactly onto `side`, its other coordinate clamped into the rectangle.
    @inline(__always)
    private func snap(_ p: Point2, side: Int) -> Point2 {
        switch side {
        case 0: Point2(x: min(max(p.x, rect.minX), rect.maxX), y: rect.minY)
        case 1: Point2(x: rect.maxX, y: min(max(p.y, rect.minY), rect.maxY))
        case 2: Point2(x: min(max(p.x, rect.minX), rect.maxX), y: rect.maxY)
        default: Point2(x: rect.minX, y: min(max(p.y, rect.minY), rect.maxY))
        }
    }

    // MARK: Joining chains along the boundary

    /// Side and position along it of a boundary point; nil when `p` is not on the boundary.
    private func position(_ p: Point2) -> (side: Int, along: Double)? {
        let r = rect
        if p.y == r.minY, p.x >= r.minX, p.x < r.maxX { return (0, p.x) }
        if p.x == r.maxX, p.y >= r.minY, p.y < r.maxY { return (1, p.y) }
        if p.y == r.maxY, p.x <= r.maxX, p.x > r.minX { return (2, -p.x) }
        if p.x == r.minX, p.y <= r.maxY, p.y > r.minY { return (3, -p.y) }
        return nil
    }

    private static let sideDirections = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)]

    private func item(at p: Point2, toward d: Point2, kind: BoundaryItem.Kind, chain: Int) -> BoundaryItem? {
        guard let pos = position(p) else { return nil }
        let (cx, cy) = Self.sideDirections[pos.side]
        let dx = d.x - p.x
        let dy = d.y - p.y
        // A pseudo-angle, monotone in the true one: 0 along the side, 1 square to it, 2 back along it.
        let along = cx * dx + cy * dy
        let across = max(0, cx * dy - cy * dx)
        let angle = 1 - along / (abs(along) + across)
        return BoundaryItem(side: pos.side, along: pos.along, angle: angle, kind: kind, index: chain)
    }

    /// Rings made of the chains and the boundary between them, split where they touch themselves, sorted into
    /// exteriors (counter-clockwise) and holes (clockwise); nil when the crossings do not pair up or cancelled.
    private mutating func reconnect(_ chains: Chains) -> (shells: [[Point2]], holes: [[Point2]])? {
        let corners = [
            Point2(x: rect.minX, y: rect.minY), Point2(x: rect.maxX, y: rect.minY),
            Point2(x: rect.maxX, y: rect.maxY), Point2(x: rect.minX, y: rect.maxY),
        ]
        var items: [BoundaryItem] = []
        items.reserveCapacity(2 * chains.count + 4)
        for (k, c) in corners.enumerated() {
            guard let pos = position(c) else { return nil }
            items.append(BoundaryItem(side: pos.side, along: pos.along, angle: .infinity, kind: .corner, index: k))
        }
        for c in 0..<chains.count {
            let r = chains.range(c)
            let pts = chains.points
            guard let entry = item(at: pts[r.lowerBound], toward: pts[r.lowerBound + 1], kind: .entry, chain: c),
                let exit = item(at: pts[r.upperBound - 1], toward: pts[r.upperBound - 2], kind: .exit, chain: c)
            else { return nil }
            items.append(entry)
            items.append(exit)
        }
        items.sort { a, b in
            if a.side != b.side { return a.side < b.side }
            if a.along != b.along { return a.along < b.along }
            if a.angle != b.angle { return a.angle > b.angle }
            return a.kind.rawValue < b.kind.rawValue
        }
        if cancellation.isCancelled { return nil }
        // For each chain: the chain its exit leads to, and the corners passed on the way.
        let m = items.count
        var next = [Int](repeating: -1, count: chains.count)
        var gapCorners = [[Int]](repeating: [], count: chains.count)
        // Chains with an end at a boundary point shared with another chain: their rings may touch themselves.
        var shared = [Bool](repeating: false, count: chains.count)
        for i in 0..<m where items[i].kind != .corner {
            let j = i + 1 < m ? i + 1 : 0
            if items[j].kind != .corner, items[j].side == items[i].side, items[j].along == items[i].along {
                shared[items[i].index] = true
                shared[items[j].index] = true
            }
            guard items[i].kind == .exit else { continue }
            var k = j
            var scanned = 0
            while items[k].kind == .corner {
                gapCorners[items[i].index].append(items[k].index)
                k = k + 1 < m ? k + 1 : 0
                scanned += 1
                if scanned > 4 { return nil }
            }
            guard items[k].kind == .entry, next[items[i].index] < 0 else { return nil }
            next[items[i].index] = items[k].index
        }
        var entered = [Bool](repeating: false, count: chains.count)
        for c in 0..<chains.count {
            guard next[c] >= 0, !entered[next[c]] else { return nil }
            entered[next[c]] = true
        }
        var shells: [[Point2]] = []
        var holes: [[Point2]] = []
        var used = [Bool](repeating: false, count: chains.count)
        for first in 0..<chains.count where !used[first] {
            var ring: [Point2] = []
            var c = first
            var mixed = false
            repeat {
                if cancellation.isCancelled { return nil }
                used[c] = true
                mixed = mixed || shared[c] || chains.rings[c] != chains.rings[first]
                for p in chains.points[chains.range(c)] where ring.last != p { ring.append(p) }
                for k in gapCorners[c] where ring.last != corners[k] { ring.append(corners[k]) }
                c = next[c]
            } while c != first
            if ring.count > 1, ring.first == ring.last { ring.removeLast() }
            for piece in mixed ? Self.splitAtRepeatedVertices(ring) : [ring] where piece.count >= 3 {
                let area = RectangleClipper.signedArea(piece)
                if area > 0 {
                    shells.append(piece)
                } else if area < 0 {
                    holes.append(piece)
                }
            }
        }
        return (shells, holes)
    }

    /// A ring cut into simple loops wherever it passes through a vertex twice.
    static func splitAtRepeatedVertices(_ ring: [Point2]) -> [[Point2]] {
        var stack: [Point2] = []
        var seen: [Point2: Int] = [:]
        var loops: [[Point2]] = []
        for p in ring {
            if let k = seen[p] {
                loops.append(Array(stack[k...]))
                for q in stack[(k + 1)...] { seen[q] = nil }
                stack.removeSubrange((k + 1)...)
            } else {
                seen[p] = stack.count
                stack.append(p)
            }
        }
        loops.append(stack)
        return loops
    }

    // MARK: Holes into exteriors

    /// Each hole given to the exterior that holds it; nil (inconsistent) when one has none.
    private func assemble(shells: [[Point2]], holes: [[Point2]]) -> Outcome {
        guard !shells.isEmpty else { return holes.isEmpty ? .pieces([]) : .inconsistent }
        var polygons = shells.map { [$0] }
        if shells.count == 1 {
            polygons[0] += holes
            return .pieces(polygons)
        }
        let boxes = shells.map(Self.box)
        for hole in holes {
            let hb = Self.box(hole)
            let candidates = boxes.indices.filter { boxes[$0].contains(hb) }
            var owner = candidates.count == 1 ? candidates[0] : nil
            if owner == nil {
                for c in candidates {
                    var verdict = RingValidator.Location.boundary
                    for p in hole {
                        verdict = RectangleClipper.locate(p, in: shells[c])
                        if verdict != .boundary { break }
                    }
                    if verdict == .inside {
                        owner = c
                        break
                    }
                }
            }
            guard let owner else { return .inconsistent }
            polygons[owner].append(hole)
        }
        return .pieces(polygons)
    }

    private static func box(_ ring: [Point2]) -> Bounds {
        var b = Bounds.empty
        for p in ring { b.include(x: p.x, y: p.y) }
        return b
    }
}
