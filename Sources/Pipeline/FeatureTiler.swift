import GeometryAlgorithms
import GeometryOps
import KartpackCore
import VectorTile

/// What happened to one feature while it was cut into tiles.
struct TilingOutcome: Sendable {
    var pieces: [TilePiece] = []
    /// Repairs applied, by kind (`make_valid`, `simplify_fallback`, `tiny_feature_kept`, …).
    var repairs: [String: Int] = [:]
    /// Zoom levels at which the feature collapsed (no geometry left after simplify and quantize).
    var collapsedAt: [Int] = []
    /// Set when the feature could not be tiled at all, with a stable reason code and a message.
    var rejection: (code: String, message: String)?
    /// Bounds of the geometry in Web Mercator metres.
    var bounds: Bounds?
    /// The zooms the feature was tiled for (its layer's, narrowed by the style).
    var zooms: ClosedRange<Int>?
    /// Style decisions, when a stylesheet is used.
    var styled: StyledFeature?
}

/// Cuts one feature (Web Mercator metres) into MVT pieces for every tile it touches at every zoom.
///
/// Descends the tile pyramid: each child tile is clipped from its parent's clipped (unsimplified) piece, so the
/// cost grows with the data and the tiles it touches, not with their product. At each tile the piece is
/// simplified with a tolerance of `simplify` tile units, quantized to the integer grid, re-validated there
/// (repaired with GEOS when rounding broke a ring) and encoded. One per worker thread: it owns a GEOS context.
final class FeatureTiler {
    let engine: GeometryEngine
    let parameters: TilingParameters

    init(parameters: TilingParameters) {
        engine = GeometryEngine()
        self.parameters = parameters
    }

    /// Tiles `geometry` (metres, finite) over `zooms` (within the parameters' range).
    func tile(_ geometry: Geometry, zooms: ClosedRange<Int>) -> TilingOutcome {
        var outcome = TilingOutcome()
        do {
            switch geometry.kind.family {
            case .point: tilePoints(geometry, zooms: zooms, into: &outcome)
            case .line, .polygon: try tileShapes(geometry, zooms: zooms, into: &outcome)
            }
        } catch {
            outcome.pieces = []
            outcome.rejection = (error.diagnosticCode, error.description)
        }
        return outcome
    }

    // MARK: Points (no GEOS needed)

    private func tilePoints(_ g: Geometry, zooms: ClosedRange<Int>, into outcome: inout TilingOutcome) {
        for z in zooms {
            var byTile: [TileCoordinate: [TilePoint]] = [:]
            var order: [TileCoordinate] = []
            for i in 0..<g.pointCount {
                let p = g.point(i)
                let box = Bounds(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y).expanded(by: parameters.bufferMetres(zoom: z))
                guard let range = SphericalMercator.tileRange(covering: box, zoom: z) else { continue }
                for t in range {
                    guard parameters.bufferedBounds(of: t).contains(x: p.x, y: p.y) else { continue }
                    let q = Quantizer(transform: TileTransform(tile: t, extent: parameters.extent))
                    var clamped = false
                    guard let tp = q.snap(x: p.x, y: p.y, clamped: &clamped) else { continue }
                    if byTile[t] == nil { order.append(t) }
                    byTile[t, default: []].append(tp)
                }
            }
            if order.isEmpty { outcome.collapsedAt.append(z) }
            for t in order.sorted() {
                outcome.pieces.append(TilePiece(tile: t, type: .point, commands: MVTGeometryEncoder.points(byTile[t] ?? [])))
            }
        }
    }

    // MARK: Lines and polygons

    private func tileShapes(_ g: Geometry, zooms: ClosedRange<Int>, into outcome: inout TilingOutcome) throws(GeometryError) {
        let family = g.kind.family
        var handle = try engine.prepare(g)
        if family == .polygon, try !engine.isValid(handle) {
            guard let fixed = try engine.makeValid(handle, family: .polygon) else {
                outcome.rejection = ("empty_geometry", "polygon has no area left after repair (\(try engine.validityReason(handle)))")
                return
            }
            handle = fixed
            outcome.repairs["make_valid", default: 0] += 1
        }
        guard let bounds = g.bounds else { return }
        var producedAtMax = false
        var stack: [(TileCoordinate, EngineGeometry, Bounds)] = []
        let z0 = zooms.lowerBound
        // A geometry wholly outside the world (e.g. the far copy of an antimeridian feature) yields nothing.
        guard let range = SphericalMercator.tileRange(covering: bounds.expanded(by: parameters.bufferMetres(zoom: z0)), zoom: z0) else { return }
        for t in Array(range).reversed() { stack.append((t, handle, bounds)) }
        var collapsed = Set<Int>()
        while let (tile, parentPiece, parentBounds) = stack.popLast() {
            let rect = parameters.bufferedBounds(of: tile)
            guard rect.intersects(parentBounds) else { continue }
            let piece: EngineGeometry
            let pieceBounds: Bounds
            if rect.contains(parentBounds) {
                piece = parentPiece
                pieceBounds = parentBounds
            } else {
                guard let clipped = try engine.clip(parentPiece, to: rect) else { continue }
                piece = clipped
                pieceBounds = parentBounds.intersection(rect)
            }
            if let encoded = try encode(piece, family: family, tile: tile, outcome: &outcome) {
                outcome.pieces.append(encoded)
                if tile.z == zooms.upperBound { producedAtMax = true }
            } else {
                collapsed.insert(tile.z)
            }
            if tile.z < zooms.upperBound {
                for child in tile.children.reversed() { stack.append((child, piece, pieceBounds)) }
            }
        }
        if !producedAtMax, let fallback = try tinyFeaturePiece(handle, family: family, zoom: zooms.upperBound) {
            outcome.pieces.append(fallback)
            outcome.repairs["tiny_feature_kept", default: 0] += 1
            collapsed.remove(zooms.upperBound)
        }
        // Collapsed means no piece at all at that zoom.
        let produced = Set(outcome.pieces.map(\.tile.z))
        outcome.collapsedAt = collapsed.subtracting(produced).sorted()
        outcome.pieces.sort { $0.tile < $1.tile }
    }

    /// Simplifies, quantizes, re-validates and encodes one clipped piece; nil when nothing is left.
    private func encode(
        _ piece: EngineGeometry, family: GeometryFamily, tile: TileCoordinate, outcome: inout TilingOutcome
    ) throws(GeometryError) -> TilePiece? {
        let tolerance = parameters.simplify * parameters.unit(zoom: tile.z)
        guard let full = try engine.geometry(piece, family: family) else { return nil }
        // Douglas–Peucker in Swift; the integer-grid check below catches and repairs what it may break.
        let g = DouglasPeucker.simplified(full, tolerance: tolerance)
        let quantizer = Quantizer(transform: TileTransform(tile: tile, extent: parameters.extent))
        if family == .line {
            let q = quantizer.quantizeLines(g)
            let commands = q.commands
            return commands.isEmpty ? nil : TilePiece(tile: tile, type: .lineString, commands: commands)
        }
        var q = quantizer.quantizePolygons(g)
        if q.needsRepair {
            // Rounding broke a ring: repair on the integer grid, then quantize again.
            guard let repaired = try repairOnGrid(q) else { return nil }
            // GEOS made it valid on the grid; the quantizer's check is stricter than OGC (rings touching at a
            // point are flagged), so the repaired result is kept as it is.
            q = Quantizer().quantizePolygons(repaired)
            outcome.repairs["grid_repair", default: 0] += 1
        }
        let commands = MVTGeometryEncoder.polygons(q.polygons)
        return commands.isEmpty ? nil : TilePiece(tile: tile, type: .polygon, commands: commands)
    }

    /// Makes quantized polygons valid on the integer grid (GEOS setPrecision with grid 1, which keeps the output
    /// valid), returning tile-coordinate geometry.
    private func repairOnGrid(_ q: QuantizedPolygons) throws(GeometryError) -> Geometry? {
        var polys: [[[Double]]] = []
        for poly in q.polygons {
            polys.append(poly.map { ring in
                var xy: [Double] = []
                xy.reserveCapacity(ring.count * 2 + 2)
                for p in ring { xy += [Double(p.x), Double(p.y)] }
                if let f = ring.first { xy += [Double(f.x), Double(f.y)] }
                return xy
            })
        }
        guard !polys.isEmpty else { return nil }
        let h = try engine.prepare(Geometry.polygons(polys))
        let valid = try engine.isValid(h) ? h : try engine.makeValid(h, family: .polygon)
        guard let valid, let snapped = try engine.snapToGrid(valid, gridSize: 1) else { return nil }
        return try engine.geometry(snapped, family: .polygon)
    }

    /// A minimal stand-in for a feature too small for the max-zoom grid, so no feature disappears at max zoom:
    /// a one-unit square (polygons) or segment (lines) at a point on the feature.
    private func tinyFeaturePiece(_ h: EngineGeometry, family: GeometryFamily, zoom z: Int) throws(GeometryError) -> TilePiece? {
        guard let p = try engine.pointOnSurface(h),
            let range = SphericalMercator.tileRange(covering: Bounds(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y), zoom: z),
            let tile = range.first(where: { _ in true })
        else { return nil }
        let q = Quantizer(transform: TileTransform(tile: tile, extent: parameters.extent))
        var clamped = false
        guard let a = q.snap(x: p.x, y: p.y, clamped: &clamped) else { return nil }
        if family == .line {
            return TilePiece(tile: tile, type: .lineString, commands: MVTGeometryEncoder.lines([[a, TilePoint(a.x + 1, a.y)]]))
        }
        // Positive area in y-down tile coordinates: clockwise on screen.
        let ring = [a, TilePoint(a.x + 1, a.y), TilePoint(a.x + 1, a.y + 1), TilePoint(a.x, a.y + 1)]
        return TilePiece(tile: tile, type: .polygon, commands: MVTGeometryEncoder.polygons([[ring]]))
    }
}
