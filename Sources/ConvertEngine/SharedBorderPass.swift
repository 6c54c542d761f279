import GeometryAlgorithms
import GeometryOps
import VectorTile

/// Shared-border simplification in the encode phase (issue 14, docs/map-quality.md): the polygon pieces of one
/// output layer in one tile are simplified together with `SharedBorderSimplifier`, so neighbours that share a
/// border in the source share the identical simplified border, and polygons that did not overlap do not overlap.
///
/// `TileStage` leaves polygon pieces clipped and quantized but unsimplified when this pass is on; this pass
/// simplifies the rings of every polygon piece of a layer at once with the tile's buffered clip rectangle (where
/// borders meet it, vertices stay fixed, so neighbouring tiles agree on their seams), and gives each piece its
/// simplified rings. When a result fails `Quantizer.isValidOnGrid` (the simplifier keeps valid input valid, so this is
/// only a guard), every piece of that layer in that tile keeps its unsimplified rings (counted in `fallbacks`).
/// A piece whose input failed that strict check already (parts touching at a point where the clip rectangle cut
/// them, valid in OGC) passes when no more of its edges meet than before (`meetsNoMore`): before, one such piece
/// sent most tiles of a large coverage back unsimplified (66 % of the pieces at z11 of 100k generated stands).
/// A piece `TileStage` left broken (`TilePiece.needsRepair`: rounding folded it, its repair deferred to here) is
/// simplified with the others, its crossings kept, and then repaired on the grid (`repairLate`,
/// LateGridRepair.swift); the guard does not apply to it.
/// Deterministic: the simplifier does not depend on the order of features, and pieces of a tile are in (layer,
/// feature) order.
package struct SharedBorderPass: Sendable {
    /// Douglas–Peucker tolerance in tile units.
    var tolerance: Double
    /// The buffered tile rectangle the pieces were clipped to.
    package var clip: TileRect
    /// The side of the square a small polygon may be drawn as (`SmallFeatureReduction`), in tile units.
    package var smallFeatureSize: Double

    package init(tolerance: Double, extent: Int, buffer: Double, smallFeatureSize: Double = 2) {
        self.tolerance = tolerance
        clip = TileRect.bufferedTile(extent: extent, buffer: buffer)
        self.smallFeatureSize = smallFeatureSize
    }

    /// What the pass did in one tile: the new geometry per piece index, and the pieces that kept their input.
    package struct TileResult: Sendable {
        var geometries: [(index: Int, geometry: PieceGeometry)] = []
        var fallbacks = 0
        var verticesIn = 0
        var verticesOut = 0
        /// Pieces repaired after the pass (`TilePiece.needsRepair`), and the polygons of them left out as islets.
        var lateRepairs = 0
        var isletsLeftOut = 0
    }

    /// Simplifies the polygon pieces of one tile (`pieces[run]`, sorted by layer then feature), layer by layer, and
    /// repairs the pieces that wait for it (`TilePiece.needsRepair`; a piece nothing is left of gets an empty
    /// geometry, which is not written).
    /// - Throws: `PipelineError.interrupted` when the run is cancelled, `tileEncoding` when GEOS fails a repair.
    package func simplify(_ run: Range<Int>, pieces: [TilePiece]) throws(PipelineError) -> TileResult {
        var result = TileResult()
        var start = run.lowerBound
        while start < run.upperBound {
            var end = start + 1
            while end < run.upperBound && pieces[end].layer == pieces[start].layer { end += 1 }
            let indices = (start..<end).filter { pieces[$0].type == .polygon }
            if !indices.isEmpty {
                do throws(GeometryError) {
                    try simplifyLayer(
                        indices, pieces: pieces, keepClear: squares(start..<end, pieces: pieces), into: &result)
                } catch .interrupted {
                    throw .interrupted(signal: 0)
                } catch {
                    throw .tileEncoding(tile: "\(pieces[start].tile)", reason: "grid repair: \(error)")
                }
            }
            start = end
        }
        return result
    }

    /// Where the small polygons among `pieces[range]` may be drawn as squares (centred on them; a unit of margin).
    private func squares(_ range: Range<Int>, pieces: [TilePiece]) -> [TileRect] {
        let half = Int32(clamping: Int((smallFeatureSize / 2).rounded(.up)) + 1)
        return range.compactMap { i in
            guard case .dust(let d) = pieces[i].geometry, d.polygon else { return nil }
            return TileRect(
                minX: d.x &- half, minY: d.y &- half, maxX: d.x &+ half, maxY: d.y &+ half)
        }
    }

    private func simplifyLayer(
        _ indices: [Int], pieces: [TilePiece], keepClear: [TileRect], into result: inout TileResult
    ) throws(GeometryError) {
        let input = indices.map { pieces[$0].geometry.polygons }
        let late = indices.map { pieces[$0].needsRepair }
        let out = SharedBorderSimplifier(tolerance: tolerance, clip: clip).simplify(input, keepClear: keepClear)
        result.verticesIn += out.statistics.inputVertices
        // A piece left invalid (only a guard: valid input stays valid) sends the whole layer of this tile back
        // to its unsimplified rings, so that neighbours still share their borders. A piece whose input already
        // failed the grid check (parts that touch at a point where the clip rectangle cut them: valid in OGC,
        // refused by the strict check) only has to stay no worse than it was.
        // A piece the simplifier left as it came is as valid as before, or no worse: no check needed.
        // A piece waiting for its repair is repaired below, whatever the pass made of it.
        let valid = out.features.indices.allSatisfy { k in
            late[k] || out.features[k] == input[k] || Quantizer.isValidOnGrid(out.features[k])
                || (!Quantizer.isValidOnGrid(input[k]) && Self.meetsNoMore(out.features[k], than: input[k]))
        }
        if !valid { result.fallbacks += indices.count }
        var kept = valid ? out.features : input
        if late.contains(true) {
            result.lateRepairs += late.count { $0 }
            result.isletsLeftOut += try repairLate(&kept, late: late, input: input, keepClear: keepClear)
        }
        for (k, i) in indices.enumerated() {
            let polygons = kept[k]
            result.verticesOut += polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
            // Unchanged rings keep the piece's geometry as it is (no copy).
            guard late[k] || polygons != input[k] else { continue }
            let geometry = PieceGeometry(polygons: polygons)
            // A repaired piece always gets its new geometry, even an empty one (not written): never its input.
            if late[k] || !geometry.isEmpty { result.geometries.append((i, geometry)) }
        }
    }

    /// True when no more pairs of edges of `simplified` meet (cross, touch or overlap) than of `input`: the
    /// simplifier added no crossing to a piece that was already not strictly valid. False when either count is
    /// too costly to make.
    static func meetsNoMore(_ simplified: [[[TilePoint]]], than input: [[[TilePoint]]]) -> Bool {
        let before = input.flatMap { $0 }
        guard let limit = RingValidator.intersectionCount(before, limit: Int.max) else { return false }
        guard let after = RingValidator.intersectionCount(simplified.flatMap { $0 }, limit: limit + 1) else {
            return false
        }
        return after <= limit
    }
}
