import GeometryAlgorithms
import GeometryOps
import KartpackCore
import VectorTile

/// Repairs a polygon piece that rounding to the integer tile grid broke, in time O(n log n) in its size; GEOS only
/// ever sees a bounded piece.
///
/// 1. Every ring loses the vertices that add no area on the grid (`GridRingCleaner`: repeats, collinear runs,
///    zero-width spikes). A dense saw-tooth's teeth collapse into such runs; after this pass it is usually
///    valid and GEOS is not needed at all. Validity is decided in Swift (`isValidExactly`: the x-sort, then the
///    Shamos–Hoey sweep when its budget runs out), never by GEOS, whose test is quadratic for long overlapping
///    edges.
/// 2. Still broken, at most `exactRepairLimit` vertices and `exactRepairPolygons` polygons (or any number of
///    polygons each within `smallPart` units), and few crossings (`hasFewCrossings`): GEOS makes it valid on the
///    grid (isValid, MakeValid, setPrecision 1), as before (`grid_repair`). With shared borders (unsimplified
///    pieces, so whole coastlines) the piece is left as it is, marked (`TilePiece.needsRepair`), and repaired
///    after the shared-border pass on its simplified rings, a third of the vertices (`lateRepaired`: rings that
///    only touch themselves at a repeated vertex cut into loops in Swift, GEOS for the rest; LateGridRepair.swift).
/// 3. Larger: simplified again with 4× the tolerance (`coarse_grid_repair`) while a round still removes an
///    eighth of the vertices, up to `maxCoarsening` rounds, until it is valid or small enough for step 2: at this
///    zoom its detail is below the grid anyway.
/// 4. Still too big: a piece made only of small parts (each within `smallPart` units, so GEOS's noding meets
///    only near neighbours) goes to GEOS as before. Any other — the thousands of overlapping slivers of a clipped
///    dense saw-tooth or star, which make GEOS's snap rounding super-linear — is redrawn from its unsimplified
///    piece on a coarse block grid (`BlockCoverage`, `block_grid_repair`): blocks at least half covered, valid
///    by construction.
extension TileStage {
    /// Vertices up to which a broken piece is repaired by GEOS as it is.
    static let exactRepairLimit = 20_000
    /// Polygons up to which a broken piece is repaired by GEOS as it is, unless all of them are small: with many
    /// long, close slivers GEOS's snap rounding (`KdTree::queryNode`) and hole assignment (`RayCrossingCounter`)
    /// are super-linear (a 125k-vertex saw-tooth at zoom 14: ~1 300 slivers and 5 000 vertices a tile, 30 CPU s).
    static let exactRepairPolygons = 256
    /// Coarsening rounds (4× each) at most.
    static let maxCoarsening = 12
    /// The largest width and height (grid units) of every polygon of a piece GEOS may repair whatever its size.
    static let smallPart: Int32 = 16

    /// The repaired polygons of a piece whose quantization `q` (of `full` simplified with `tolerance`) needs
    /// repair; `unit` is one grid unit in the piece's coordinates. Nil when nothing is left. `defersToPass` (shared
    /// borders): a piece step 2 would repair is returned cleaned but unrepaired, with `needsRepair` still set, for
    /// `SharedBorderPass` to repair after it simplified it (`lateRepaired`).
    func repairPolygons(
        _ q: QuantizedPolygons, full: Geometry, tolerance: Double, unit: Double, quantizer: Quantizer,
        defersToPass: Bool = false, repairs: inout Set<ReasonCode>
    ) throws(GeometryError) -> QuantizedPolygons? {
        var current = q
        var tol = tolerance
        var rounds = 0
        var previousSize = Int.max
        while true {
            if CancellationFlag.process.isCancelled { throw .interrupted }
            let cleaned = Self.cleaned(current.polygons)
            guard !cleaned.isEmpty else { return nil }
            if try Self.isValidExactly(cleaned) {
                repairs.insert(.gridRepair)
                return Self.replacing(current, with: cleaned)
            }
            let size = Self.vertexCount(cleaned)
            if size <= Self.exactRepairLimit
                && (cleaned.count <= Self.exactRepairPolygons || Self.hasOnlySmallParts(cleaned))
                && Self.hasFewCrossings(cleaned, size: size)
            {
                repairs.insert(.gridRepair)
                if defersToPass {
                    var left = Self.replacing(current, with: cleaned)
                    left.needsRepair = true
                    return left
                }
                guard let repaired = try repairOnGrid(cleaned) else { return nil }
                return Quantizer().quantizePolygons(repaired)
            }
            if rounds == Self.maxCoarsening || size > previousSize - previousSize / 8 {
                // Coarsening no longer helps: its detail is in long, overlapping parts.
                if Self.hasOnlySmallParts(cleaned) {
                    guard let repaired = try repairOnGrid(cleaned) else { return nil }
                    repairs.insert(.gridRepair)
                    return Quantizer().quantizePolygons(repaired)
                }
                return try blockCoverage(full, quantizer: quantizer, template: current, repairs: &repairs)
            }
            // Too broken and too big for an exact repair: coarser, then again.
            repairs.insert(.coarseGridRepair)
            previousSize = size
            rounds += 1
            tol = max(4 * tol, unit)
            current = quantizer.quantizePolygons(DouglasPeucker.simplified(full, tolerance: tol))
            guard !current.isEmpty else { return nil }
            if !current.needsRepair { return current }
        }
    }

    /// Step 4: the unsimplified piece `full` redrawn on the coarsest block grid the budgets need
    /// (`block_grid_repair`); nil when no block is half covered. The result is checked once more (it is valid by
    /// construction); should that ever fail, the piece is left out of this tile (`grid_repair_dropped`).
    func blockCoverage(
        _ full: Geometry, quantizer: Quantizer, template: QuantizedPolygons, repairs: inout Set<ReasonCode>
    ) throws(GeometryError) -> QuantizedPolygons? {
        var rings: [[Double]] = []
        rings.reserveCapacity(full.partCount)
        for part in 0..<full.partCount {
            let range = full.pointRange(ofPart: part)
            var xy: [Double] = []
            xy.reserveCapacity(2 * range.count)
            for i in range {
                let p = full.point(i)
                let t = quantizer.transform.apply(x: p.x, y: p.y)
                guard t.x.isFinite, t.y.isFinite else { continue }
                xy.append(t.x)
                xy.append(t.y)
            }
            if xy.count >= 6 { rings.append(xy) }
        }
        let block = BlockCoverage.blockSize(for: rings)
        guard let polygons = BlockCoverage.polygons(rings, block: block) else { throw .interrupted }
        repairs.insert(.blockGridRepair)
        guard !polygons.isEmpty else { return nil }
        let vertices = polygons.map { $0.map { $0.map { SegmentSweep.Vertex(x: Int64($0.x), y: Int64($0.y)) } } }
        guard let disjoint = SegmentSweep.edgesAreDisjoint(vertices.flatMap { $0 }) else { throw .interrupted }
        guard disjoint else {
            repairs.insert(.gridRepairDropped)
            return nil
        }
        return Self.replacing(template, with: polygons)
    }

    /// `Quantizer.isValidOnGrid` (exact: past a small x-sort budget `RingValidator` decides with the sweep), except
    /// that a check a signal cut short stops the repair instead of answering "invalid".
    static func isValidExactly(_ polygons: [[[TilePoint]]]) throws(GeometryError) -> Bool {
        if Quantizer.isValidOnGrid(polygons) { return true }
        if CancellationFlag.process.isCancelled { throw .interrupted }
        return false
    }

    /// True when at most a quarter as many edge pairs meet as there are vertices (plus 256): GEOS's snap rounding
    /// costs about that many hot-pixel searches. A quantized dense star meets itself almost everywhere (its spikes
    /// cross near the centre): 125k vertices took 38 CPU s in GEOS at zooms 0–14 before this bound.
    static func hasFewCrossings(_ polygons: [[[TilePoint]]], size: Int) -> Bool {
        let limit = size / 4 + 256
        let rings = polygons.flatMap { $0 }
        guard let n = RingValidator.intersectionCount(rings, limit: limit + 1, pairsPerTest: 16, allowance: 4096)
        else { return false }
        return n <= limit
    }

    /// True when every polygon's exterior fits in `smallPart` × `smallPart` grid units.
    static func hasOnlySmallParts(_ polygons: [[[TilePoint]]]) -> Bool {
        polygons.allSatisfy { rings in
            guard let ring = rings.first, let f = ring.first else { return true }
            var lo = f
            var hi = f
            for p in ring {
                lo = TilePoint(min(lo.x, p.x), min(lo.y, p.y))
                hi = TilePoint(max(hi.x, p.x), max(hi.y, p.y))
            }
            return Int64(hi.x) - Int64(lo.x) <= Int64(smallPart) && Int64(hi.y) - Int64(lo.y) <= Int64(smallPart)
        }
    }

    static func vertexCount(_ polygons: [[[TilePoint]]]) -> Int {
        polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
    }

    package static func replacing(_ q: QuantizedPolygons, with polygons: [[[TilePoint]]]) -> QuantizedPolygons {
        var out = q
        out.polygons = polygons
        out.needsRepair = false
        return out
    }

    /// Each ring cleaned; a polygon whose exterior has no area left is dropped, a hole without area too.
    static func cleaned(_ polygons: [[[TilePoint]]]) -> [[[TilePoint]]] {
        var out: [[[TilePoint]]] = []
        for rings in polygons {
            var kept: [[TilePoint]] = []
            for (k, ring) in rings.enumerated() {
                let c = GridRingCleaner.cleaned(ring)
                if c.count >= 3 {
                    kept.append(c)
                } else if k == 0 {
                    break
                }
            }
            if !kept.isEmpty { out.append(kept) }
        }
        return out
    }

    /// Tile-coordinate polygons with closed rings, as GEOS wants them.
    package static func closed(_ polygons: [[[TilePoint]]]) -> Geometry {
        Geometry.polygons(
            polygons.map { poly in
                poly.map { ring in
                    var xy: [Double] = []
                    xy.reserveCapacity(ring.count * 2 + 2)
                    for p in ring { xy += [Double(p.x), Double(p.y)] }
                    if let f = ring.first { xy += [Double(f.x), Double(f.y)] }
                    return xy
                }
            })
    }

    /// `polygons` with every ring that touches itself at a repeated vertex cut into loops there (`PinchedRings`), when
    /// that is all that was wrong: GEOS finds the loops valid (polygons or holes touching at a point). Nil when no
    /// ring repeats a vertex or the loops are still invalid (a ring crossing itself as well): `repairOnGrid` then.
    /// The loops are what GEOS MakeValid made of such a ring, on the grid already, at a fraction of its cost (the
    /// defect rounding unsimplified coastlines to the grid leaves most often: a narrow inlet closed to one point).
    static func pinchedLoops(_ polygons: [[[TilePoint]]], engine: GeometryEngine) throws(GeometryError)
        -> [[[TilePoint]]]?
    {
        // Not cleaned again: at the cut, a loop's vertex may lie between two collinear edges of the loop, and
        // without it the other loop would touch an edge there.
        guard let loops = PinchedRings.split(polygons), !loops.isEmpty, !Self.crosses(loops),
            try engine.isValid(engine.prepare(Self.closed(loops)))
        else { return nil }
        return loops
    }

    /// True when two edges of `polygons` cross or overlap (`RingValidator.hasCrossing`): GEOS would find them
    /// invalid, so its validity test (as costly as the noding of a repair) is not needed. False when unknown.
    static func crosses(_ polygons: [[[TilePoint]]]) -> Bool {
        RingValidator.hasCrossing(polygons.flatMap { $0 }) == true
    }

    /// Makes quantized polygons valid on the integer grid (GEOS setPrecision with grid 1, which keeps the output
    /// valid), returning tile-coordinate geometry.
    func repairOnGrid(_ polygons: [[[TilePoint]]]) throws(GeometryError) -> Geometry? {
        try Self.repairOnGrid(polygons, engine: engine)
    }

    /// `repairOnGrid(_:)` with the GEOS engine `engine`.
    static func repairOnGrid(_ polygons: [[[TilePoint]]], engine: GeometryEngine) throws(GeometryError) -> Geometry? {
        guard !polygons.isEmpty else { return nil }
        let h = try engine.prepare(Self.closed(polygons))
        var isValid = false
        if !Self.crosses(polygons) { isValid = try engine.isValid(h) }
        let valid = isValid ? h : try engine.makeValid(h, family: .polygon)
        guard let valid, let snapped = try engine.snapToGrid(valid, gridSize: 1) else { return nil }
        return try engine.geometry(snapped, family: .polygon)
    }
}
