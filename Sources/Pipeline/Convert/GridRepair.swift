import GeometryAlgorithms
import GeometryOps
import KartpackCore
import VectorTile

/// Repairs a polygon piece that rounding to the integer tile grid broke, in time O(n log n) in its size.
///
/// 1. Every ring loses the vertices that add no area on the grid (`GridRingCleaner`: repeats, collinear runs,
///    zero-width spikes). A dense saw-tooth's teeth collapse into such runs; after this pass it is usually
///    valid and GEOS is not needed at all.
/// 2. Still broken and at most `exactRepairLimit` vertices: GEOS makes it valid on the grid (isValid, MakeValid,
///    setPrecision 1), as before (`grid_repair`).
/// 3. Larger: GEOS's O(n log n) validity test decides (the Swift check gives up on many long, overlapping
///    edges); a valid piece is kept. An invalid one would make GEOS's noding quadratic (a star whose inner
///    vertices fall into a few cells), so the piece is simplified again with 4× the tolerance until it is valid
///    or small enough for step 2 (`coarse_grid_repair`): at this zoom its detail is below the grid anyway.
extension TileStage {
    /// Vertices up to which a broken piece is repaired by GEOS as it is.
    static let exactRepairLimit = 20_000
    /// Coarsening rounds (4× each) before GEOS repairs whatever is left.
    static let maxCoarsening = 12

    /// The repaired polygons of a piece whose quantization `q` (of `full` simplified with `tolerance`) needs
    /// repair; `unit` is one grid unit in the piece's coordinates. Nil when nothing is left.
    func repairPolygons(
        _ q: QuantizedPolygons, full: Geometry, tolerance: Double, unit: Double, quantizer: Quantizer,
        repairs: inout Set<String>
    ) throws(GeometryError) -> QuantizedPolygons? {
        var current = q
        var tol = tolerance
        var rounds = 0
        while true {
            if CancellationFlag.process.isCancelled { throw .interrupted }
            let cleaned = Self.cleaned(current.polygons)
            guard !cleaned.isEmpty else { return nil }
            let size = cleaned.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
            if Quantizer.isValidOnGrid(cleaned) {
                repairs.insert("grid_repair")
                var out = current
                out.polygons = cleaned
                out.needsRepair = false
                return out
            }
            if size <= Self.exactRepairLimit || rounds == Self.maxCoarsening {
                guard let repaired = try repairOnGrid(cleaned) else { return nil }
                repairs.insert("grid_repair")
                return Quantizer().quantizePolygons(repaired)
            }
            let h = try engine.prepare(Self.closed(cleaned))
            if try engine.isValid(h) {
                repairs.insert("grid_repair")
                var out = current
                out.polygons = cleaned
                out.needsRepair = false
                return out
            }
            // Too broken and too big for an exact repair: coarser, then again.
            repairs.insert("coarse_grid_repair")
            rounds += 1
            tol = max(4 * tol, unit)
            current = quantizer.quantizePolygons(DouglasPeucker.simplified(full, tolerance: tol))
            guard !current.isEmpty else { return nil }
            if !current.needsRepair { return current }
        }
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
    static func closed(_ polygons: [[[TilePoint]]]) -> Geometry {
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

    /// Makes quantized polygons valid on the integer grid (GEOS setPrecision with grid 1, which keeps the output
    /// valid), returning tile-coordinate geometry.
    func repairOnGrid(_ polygons: [[[TilePoint]]]) throws(GeometryError) -> Geometry? {
        guard !polygons.isEmpty else { return nil }
        let h = try engine.prepare(Self.closed(polygons))
        let valid = try engine.isValid(h) ? h : try engine.makeValid(h, family: .polygon)
        guard let valid, let snapped = try engine.snapToGrid(valid, gridSize: 1) else { return nil }
        return try engine.geometry(snapped, family: .polygon)
    }
}
