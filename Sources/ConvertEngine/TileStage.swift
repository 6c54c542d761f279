import GeometryAlgorithms
import GeometryOps
import KartpackCore
import VectorTile

/// The last stage of the feature chain: cuts one feature (Web Mercator metres) into tile pieces (`TilePiece`, in
/// tile units) for every tile it touches at every zoom.
///
/// Descends the tile pyramid: each child tile is clipped from its parent's clipped (unsimplified) cut, so the
/// cost grows with the data and the tiles it touches, not with their product. At each tile the cut is
/// simplified with a tolerance of `simplify` tile units (Douglas–Peucker; polygons not when
/// `parameters.sharedBorders` is set, as the encode phase simplifies them with their neighbours), quantized to the
/// integer grid, re-validated there (repaired with GEOS when rounding broke a ring) and kept as a `PieceGeometry`
/// (tile units) until the MVT encoder. A cut that does not change from one zoom to the next (a feature inside one
/// tile) is copied out of GEOS once. One per worker thread: it uses the worker's GEOS engine.
package final class TileStage {
    package let engine: GeometryEngine
    package let parameters: TilingParameters
    /// Offers a giant polygon's subtrees to the other workers (`fork`, `help`); nil when there are none.
    package var offerSubtrees: (@Sendable (SubtreeGroup) -> Void)?
    /// A polygon cut (below the feature's own, once clipped) of this many vertices or more forks (a sixteenth of
    /// it while another worker waits for its fork's helpers, `SubtreeBoard.someoneWaits`).
    var forkVertices = 1 << 15
    /// The team's open forks (with `offerSubtrees`; nil: a fork waits for its helpers idle).
    package var board: SubtreeBoard?

    package init(engine: GeometryEngine, parameters: TilingParameters) {
        self.engine = engine
        self.parameters = parameters
    }

    /// Tiles a geometry that has not been through GEOS yet (tests and points); polygons are made valid first.
    package func tile(_ geometry: Geometry, zooms: ClosedRange<Int>) -> TiledFeature {
        var tiling = TiledFeature.Tiling(zooms: zooms)
        do throws(FeatureIssue) {
            if geometry.kind.family == .point {
                tilePoints(geometry, zooms: zooms, into: &tiling)
            } else {
                let h = try RepairStage(engine: engine).apply(geometry, repairs: &tiling.repairs)
                guard let b = geometry.bounds else { return .tiled(tiling) }
                let collapsed = try tileShape(h, bounds: b, family: geometry.kind.family, zooms: zooms, into: &tiling)
                tiling.collapsedAt = collapsed.sorted()
            }
            return .tiled(tiling)
        } catch {
            return .rejected(error)
        }
    }

    // MARK: Points (no GEOS needed)

    /// Adds the point pieces of `g` at every zoom: one piece per tile, holding the points that fall in it (buffer
    /// included) in input order, a single point inline; zooms where no point lies in any tile are collapsed.
    func tilePoints(_ g: Geometry, zooms: ClosedRange<Int>, into tiling: inout TiledFeature.Tiling) {
        var placed: [PlacedPoint] = []
        for z in zooms where parameters.makesPieces(zoom: z, top: zooms.upperBound) {
            placed.removeAll(keepingCapacity: true)
            for i in 0..<g.pointCount {
                let p = g.point(i)
                place(x: p.x, y: p.y, zoom: z, into: &placed)
            }
            guard !placed.isEmpty else {
                tiling.collapsedAt.append(z)
                continue
            }
            if placed.count > 1 { placed.sort { ($0.tile, $0.sequence) < ($1.tile, $1.sequence) } }
            var start = 0
            while start < placed.count {
                var end = start + 1
                while end < placed.count && placed[end].tile == placed[start].tile { end += 1 }
                let run = placed[start..<end].lazy.map(\.point)
                tiling.pieces.append(TilePiece(tile: placed[start].tile, geometry: PieceGeometry(points: run)))
                start = end
            }
        }
    }

    /// A point snapped into one tile, and its place in the order the tiles were met.
    private struct PlacedPoint {
        var tile: TileCoordinate
        var point: TilePoint
        var sequence: Int
    }

    /// Appends (x, y) snapped into every tile of zoom `z` whose buffered bounds hold it.
    private func place(x: Double, y: Double, zoom z: Int, into placed: inout [PlacedPoint]) {
        let box = Bounds(minX: x, minY: y, maxX: x, maxY: y).expanded(by: parameters.bufferMetres(zoom: z))
        guard let range = SphericalMercator.tileRange(covering: box, zoom: z) else { return }
        for t in range {
            guard parameters.bufferedBounds(of: t).contains(x: x, y: y) else { continue }
            let q = Quantizer(transform: TileTransform(tile: t, extent: parameters.extent))
            var clamped = false
            guard let tp = q.snap(x: x, y: y, clamped: &clamped) else { continue }
            placed.append(PlacedPoint(tile: t, point: tp, sequence: placed.count))
        }
    }

    /// A one-point piece in the tile of zoom `z` that owns (x, y) (no buffer), nil outside the world.
    func pointPiece(x: Double, y: Double, zoom z: Int) -> TilePiece? {
        guard let range = SphericalMercator.tileRange(covering: Bounds(minX: x, minY: y, maxX: x, maxY: y), zoom: z),
            let tile = range.first(where: { _ in true })
        else { return nil }
        var clamped = false
        guard
            let p = Quantizer(transform: TileTransform(tile: tile, extent: parameters.extent))
                .snap(x: x, y: y, clamped: &clamped)
        else { return nil }
        return TilePiece(tile: tile, geometry: .point(p))
    }

    // MARK: Lines and polygons

    /// Adds the pieces of one valid line or polygon geometry (one antimeridian copy) with extent `bounds`, in
    /// tile order, and returns the zooms where this copy leaves nothing (the caller keeps the zooms where no copy
    /// has anything).
    @discardableResult
    func tileShape(
        _ handle: EngineGeometry, bounds: Bounds, family: GeometryFamily, zooms: ClosedRange<Int>,
        into tiling: inout TiledFeature.Tiling
    ) throws(FeatureIssue) -> Set<Int> {
        // The clips' buffers are reused from tile to tile of this feature, not kept for the next one.
        defer { engine.releaseScratch() }
        do throws(GeometryError) {
            let z0 = zooms.lowerBound
            // A geometry wholly outside the world (e.g. the far copy of an antimeridian feature) yields nothing.
            guard
                let range = SphericalMercator.tileRange(
                    covering: bounds.expanded(by: parameters.bufferMetres(zoom: z0)), zoom: z0)
            else { return [] }
            var root = try Cut(handle, family: family, engine: engine)
            if let thinned = try thinnedGiantRing(root.geometry, maxZoom: zooms.upperBound) {
                root = Cut(polygons: thinned)
                tiling.repairs.insert(.giantRingThinned)
            }
            var made = Descent(family: family, top: zooms.upperBound)
            try descend(range.map { ($0, root, bounds) }, into: &made)
            tiling.repairs.formUnion(made.repairs)
            if !made.producedAtMax,
                let fallback = try tinyFeaturePiece(handle, family: family, zoom: zooms.upperBound)
            {
                made.pieces.append(fallback)
                tiling.repairs.insert(.tinyFeatureKept)
                made.collapsed.remove(zooms.upperBound)
            }
            // Collapsed means no piece at all at that zoom (a small-feature dust piece counts as one).
            let produced = Set(made.pieces.map(\.tile.z))
            made.pieces.sort { $0.tile < $1.tile }
            tiling.pieces += made.pieces
            return made.collapsed.subtracting(produced)
        } catch {
            throw FeatureIssue(code: error.diagnosticCode, message: error.description)
        }
    }

    /// Cuts the tiles `roots` (each with its parent's cut and that cut's bounds) and every tile below them down to
    /// `made.top`, into `made`, depth first. A polygon cut of `forkVertices` or more whose children workers may
    /// take (`offerSubtrees`) hands them out as subtrees instead (`fork`): the same pieces, on more cores.
    func descend(_ roots: [(TileCoordinate, Cut, Bounds)], into made: inout Descent) throws(GeometryError) {
        var stack = Array(roots.reversed())
        var copied = CopiedPiece()
        /// The children of `tile` next, or forked.
        func below(_ tile: TileCoordinate, _ cut: Cut, _ cutBounds: Bounds) throws(GeometryError) {
            let children = tile.children
            if made.family == .polygon, cut.handle == nil, let g = cut.geometry, offerSubtrees != nil,
                g.pointCount >= forkVertices || (g.pointCount >= forkVertices / 16 && board?.someoneWaits == true)
            {
                try fork(
                    children.map { Subtree(tile: $0, cut: g, boxes: cut.boxes, cutBounds: cutBounds) }, into: &made)
            } else {
                for child in children.reversed() { stack.append((child, cut, cutBounds)) }
            }
        }
        while let (tile, parentCut, parentBounds) = stack.popLast() {
            if CancellationFlag.process.isCancelled { throw GeometryError.interrupted }
            let rect = parameters.bufferedBounds(of: tile)
            guard rect.intersects(parentBounds) else { continue }
            let cut: Cut
            let cutBounds: Bounds
            if rect.contains(parentBounds) {
                cut = parentCut
                cutBounds = parentBounds
            } else {
                guard let clipped = try parentCut.clipped(to: rect, engine: engine) else { continue }
                cut = clipped
                cutBounds = parentBounds.intersection(rect)
            }
            if !parameters.makesPieces(zoom: tile.z, top: made.top) {
                // A range shard's zoom below its own (`firstPieceZoom`): only the cut goes on down.
                try below(tile, cut, cutBounds)
                continue
            }
            var full = cut.geometry
            if full == nil { full = try copied.geometry(of: cut.handle, family: made.family, engine: engine) }
            if parameters.smallFeatures, tile.z < made.top, let full,
                let dust = SmallFeatureDust.piece(full, family: made.family, tile: tile, parameters: parameters)
            {
                // Smaller than the small-feature size here: its true area (or length) goes on to small-feature
                // reduction in the encode phase instead of the grid's rounding of it (SmallFeatures.swift).
                // Not collapsed: the reduction may draw it as a pixel square, so its class is present here
                // (classes_by_zoom), as it is for a piece that the tile limits may still drop.
                made.pieces.append(dust)
            } else if let piece = try quantized(full, family: made.family, tile: tile, repairs: &made.repairs) {
                made.pieces.append(piece)
                if tile.z == made.top { made.producedAtMax = true }
            } else {
                made.collapsed.insert(tile.z)
            }
            if tile.z < made.top { try below(tile, cut, cutBounds) }
        }
    }

    /// The feature cut to one tile's buffered bounds on the way down the pyramid (not yet a `TilePiece`: in Web
    /// Mercator metres, unsimplified). Polygons are held in Swift (they are cut in Swift, so a feature
    /// made of a million slivers never goes through GEOS per tile) with the box of each polygon, so that a child
    /// tile's clip skips the polygons far from it; a GEOS handle is made from them only when a clip needs GEOS's
    /// fallback. Lines stay GEOS handles (GEOS clips them).
    struct Cut {
        /// Lines: the cut. Polygons: the feature's own handle at the root, else nil until a fallback needs it.
        var handle: EngineGeometry?
        /// Polygons: the cut (nil when GEOS left nothing of it).
        var geometry: Geometry?
        var boxes: [Bounds] = []

        init(_ handle: EngineGeometry, family: GeometryFamily, engine: GeometryEngine) throws(GeometryError) {
            self.handle = handle
            if family == .polygon { setPolygons(try engine.geometry(handle, family: .polygon)) }
        }

        /// Polygons held in Swift only (GEOS gets a handle of them when a clip needs its fallback).
        init(polygons: Geometry?) {
            setPolygons(polygons)
        }

        /// Polygons held in Swift only, with their boxes (`RectangleClipper.polygonBoxes`) already made.
        init(polygons: Geometry, boxes: [Bounds]) {
            geometry = polygons
            self.boxes = boxes
        }

        private init(handle: EngineGeometry) {
            self.handle = handle
        }

        private mutating func setPolygons(_ g: Geometry?) {
            geometry = g
            if let g { boxes = RectangleClipper.polygonBoxes(g) }
        }

        /// This cut cut to `rect` (a cut of its own, or this one when it lies inside); nil when nothing is left.
        func clipped(to rect: Bounds, engine: GeometryEngine) throws(GeometryError) -> Cut? {
            let clipper = try TileClipper(engine: engine, rect: rect)
            guard let polygons = geometry else {
                guard let handle, let clipped = try clipper.clip(handle) else { return nil }
                return Cut(handle: clipped)
            }
            let result = try clipper.clipPolygons(polygons, boxes: boxes) { () throws(GeometryError) in
                if let handle { return handle }
                return try engine.prepare(polygons)
            }
            switch result {
            case .unchanged: return self
            case .empty: return nil
            case .clipped(let g): return Cut(polygons: g)
            }
        }
    }

    /// The Swift copy of the last line piece converted: a piece that is its parent's (a feature inside one tile at
    /// several zooms) is not copied out of GEOS again.
    private struct CopiedPiece {
        var handle: EngineGeometry?
        var geometry: Geometry?

        mutating func geometry(
            of piece: EngineGeometry?, family: GeometryFamily, engine: GeometryEngine
        ) throws(GeometryError) -> Geometry? {
            guard let piece else { return nil }
            if let handle, handle === piece { return geometry }
            handle = piece
            geometry = try engine.geometry(piece, family: family)
            return geometry
        }
    }

    /// Simplifies, quantizes and re-validates one clipped piece; nil when nothing is left.
    private func quantized(
        _ full: Geometry?, family: GeometryFamily, tile: TileCoordinate, repairs: inout Set<ReasonCode>
    ) throws(GeometryError) -> TilePiece? {
        guard let full else { return nil }
        // With shared borders, polygons are simplified per tile and layer in the encode phase (SharedBorderPass).
        let deferred = family == .polygon && parameters.sharedBorders
        let tolerance = deferred ? 0 : parameters.simplify * parameters.unit(zoom: tile.z)
        // Douglas–Peucker in Swift; the integer-grid check below catches and repairs what it may break.
        let g = DouglasPeucker.simplified(full, tolerance: tolerance)
        let quantizer = Quantizer(transform: TileTransform(tile: tile, extent: parameters.extent))
        if family == .line {
            let lines = PieceGeometry(lines: quantizer.quantizeLines(g).parts)
            return lines.isEmpty ? nil : TilePiece(tile: tile, geometry: lines)
        }
        var q = quantizer.quantizePolygons(g)
        if q.needsRepair {
            // Rounding broke a ring: repaired on the integer grid in O(n log n) (GridRepair.swift).
            guard
                let repaired = try repairPolygons(
                    q, full: full, tolerance: tolerance, unit: parameters.unit(zoom: tile.z), quantizer: quantizer,
                    defersToPass: deferred, repairs: &repairs)
            else { return nil }
            q = repaired
            if deferred && q.needsRepair {
                // Repaired after the shared-border pass simplified it (LateGridRepair.swift).
                let left = PieceGeometry(unrepaired: q.polygons)
                return left.isEmpty ? nil : TilePiece(tile: tile, geometry: left, needsRepair: true)
            }
        }
        let polygons = PieceGeometry(polygons: q.polygons)
        return polygons.isEmpty ? nil : TilePiece(tile: tile, geometry: polygons)
    }

    /// A minimal stand-in for a feature too small for the max-zoom grid, so no feature disappears at max zoom:
    /// a one-unit square (polygons) or segment (lines) at a point on the feature.
    private func tinyFeaturePiece(_ h: EngineGeometry, family: GeometryFamily, zoom z: Int) throws(GeometryError)
        -> TilePiece?
    {
        guard let p = try engine.pointOnSurface(h),
            let range = SphericalMercator.tileRange(
                covering: Bounds(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y), zoom: z),
            let tile = range.first(where: { _ in true })
        else { return nil }
        let q = Quantizer(transform: TileTransform(tile: tile, extent: parameters.extent))
        var clamped = false
        guard let a = q.snap(x: p.x, y: p.y, clamped: &clamped) else { return nil }
        if family == .line {
            return TilePiece(tile: tile, geometry: PieceGeometry(lines: [[a, TilePoint(a.x + 1, a.y)]]))
        }
        // Positive area in y-down tile coordinates: clockwise on screen.
        let ring = [a, TilePoint(a.x + 1, a.y), TilePoint(a.x + 1, a.y + 1), TilePoint(a.x, a.y + 1)]
        return TilePiece(tile: tile, geometry: PieceGeometry(polygons: [[ring]]))
    }
}
