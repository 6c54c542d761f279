import GeometryAlgorithms
import VectorTile

/// Shared-border simplification in the encode phase (issue 14, docs/map-quality.md): the polygon pieces of one
/// output layer in one tile are simplified together with `SharedBorderSimplifier`, so neighbours that share a
/// border in the source share the identical simplified border, and polygons that did not overlap do not overlap.
///
/// `TileStage` leaves polygon pieces clipped and quantized but unsimplified when this pass is on; this pass decodes
/// their commands back into rings, simplifies every polygon piece of a layer at once with the tile's buffered clip
/// rectangle (where borders meet it, vertices stay fixed, so neighbouring tiles agree on their seams), and encodes
/// them again. When a result fails `Quantizer.isValidOnGrid` (the simplifier keeps valid input valid, so this is
/// only a guard), every piece of that layer in that tile keeps its unsimplified rings (counted in `fallbacks`).
/// Deterministic: the simplifier does not depend on the order of features, and pieces of a tile are in (layer,
/// feature) order.
struct SharedBorderPass: Sendable {
    /// Douglas–Peucker tolerance in tile units.
    var tolerance: Double
    /// The buffered tile rectangle the pieces were clipped to.
    var clip: TileRect

    init(tolerance: Double, extent: Int, buffer: Double) {
        self.tolerance = tolerance
        clip = TileRect.bufferedTile(extent: extent, buffer: buffer)
    }

    /// What the pass did in one tile: new commands per piece index, and the pieces that kept their input.
    struct TileResult: Sendable {
        var commands: [(index: Int, commands: [UInt32])] = []
        var fallbacks = 0
        var verticesIn = 0
        var verticesOut = 0
    }

    /// Simplifies the polygon pieces of one tile (`pieces[run]`, sorted by layer then feature), layer by layer.
    func simplify(_ run: Range<Int>, pieces: [PlacedPiece]) -> TileResult {
        var result = TileResult()
        var start = run.lowerBound
        while start < run.upperBound {
            var end = start + 1
            while end < run.upperBound && pieces[end].layer == pieces[start].layer { end += 1 }
            let indices = (start..<end).filter { pieces[$0].piece.type == .polygon }
            if !indices.isEmpty { simplifyLayer(indices, pieces: pieces, into: &result) }
            start = end
        }
        return result
    }

    private func simplifyLayer(_ indices: [Int], pieces: [PlacedPiece], into result: inout TileResult) {
        let input = indices.map { PolygonCommands.decode(pieces[$0].piece.commands) }
        let out = SharedBorderSimplifier(tolerance: tolerance, clip: clip).simplify(input)
        result.verticesIn += out.statistics.inputVertices
        // A piece left invalid (only a guard: valid input stays valid) sends the whole layer of this tile back
        // to its unsimplified rings, so that neighbours still share their borders.
        let valid = out.features.allSatisfy { Quantizer.isValidOnGrid($0) }
        if !valid { result.fallbacks += indices.count }
        for (k, i) in indices.enumerated() {
            let polygons = valid ? out.features[k] : input[k]
            let commands = MVTGeometryEncoder.polygons(polygons)
            result.verticesOut += polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
            result.commands.append((i, commands.isEmpty ? pieces[i].piece.commands : commands))
        }
    }
}
