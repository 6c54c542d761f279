import Foundation
import GeometryAlgorithms
import KartpackCore
import VectorTile

/// Small-feature reduction (issue 14, docs/map-quality.md *Small features*): polygons and lines too small to draw
/// at a zoom are neither all dropped (holes in the texture of many small lakes, buildings, islands) nor all kept.
/// In each tile, per output layer, the polygon pieces of at most `size`² tile units² (and the line pieces of at
/// most `size` units) are replaced by as many `size` × `size` squares (dashes of length `size`) as keep their
/// summed area (length) to within half a square (dash); the others are left out and counted.
///
/// As tippecanoe's tiny-polygon reduction (`--tiny-polygon-size`, default 2 units of the 4096 grid), with two
/// differences: the squares are placed at the centre of the pieces that carry them, not at their first vertex,
/// and the carriers are chosen by weighted sampling without replacement instead of by accumulating area in the
/// tile's feature order. Each feature has a fixed key `-ln(u) / area` (u a hash of its rank, the exponential race of
/// Efraimidis–Spirakis), and a tile keeps the `round(Σ area / size²)` candidates with the smallest keys. A larger
/// feature is likelier to be kept, and since every area grows fourfold per zoom, the keys keep their order from
/// zoom to zoom: a feature drawn as a square at z is almost always drawn at z + 1 (as a square, or as itself
/// once it is larger than the threshold), where the accumulation in feature order would pick other features at
/// every zoom and make the squares blink.
///
/// Pieces that vanish altogether on the integer grid are not lost: `TileStage` hands them on as *dust* pieces
/// (`SmallFeatureDust`, MVT type `unknown`, never written as such) carrying their area or length and centre.
/// Nothing is reduced at a feature's own highest zoom, where every feature is written whole (as before).
package struct SmallFeatureReduction: Sendable {
    /// The side of a square (and the length of a dash) in tile units; also the threshold.
    package var size: Double

    /// One piece that may be reduced: its index in the zoom's pieces, its area (units²) or length (units), its
    /// centre, the direction for a dash, and whether it is a polygon.
    package struct Candidate: Sendable {
        package var index: Int
        package var layer: Int32
        package var feature: Int32
        var measure: Double
        package var x: Int32
        package var y: Int32
        var dx: Double = 1
        var dy: Double = 0
        package var polygon: Bool
        /// The sampling key: smaller keys are kept first (fixed per feature and zoom-independent up to scale).
        package var key: Double
    }

    /// Counts of one tile or zoom, per output layer.
    package struct Counts: Sendable, Equatable {
        /// Pieces left out (neither drawn as themselves nor as a square).
        var reduced = 0
        /// Pieces drawn as a square (polygons) or a dash (lines) of `size`.
        var keptAsPixel = 0
    }

    /// The candidates among one tile's pieces (`pieces[run]`): its dust pieces; `isTop(layer, feature)` is true at
    /// the feature's highest zoom, where nothing is reduced (`TileStage` makes no dust there; a guard).
    package func candidates(
        _ run: Range<Int>, pieces: [TilePiece], records: [RecordTable], isTop: (Int32, Int32) -> Bool
    ) -> [Candidate] {
        var out: [Candidate] = []
        for i in run {
            let p = pieces[i]
            guard case .dust(let d) = p.geometry, !isTop(p.layer, p.feature) else { continue }
            // u in (0, 1) from the rank's second hash; the key is an exponential variate over the weight.
            let rank = records[Int(p.layer)].rank(Int(p.feature))
            let u = (Double(FeatureRank.mix(rank) >> 11) + 0.5) / Double(UInt64(1) << 53)
            out.append(
                Candidate(
                    index: i, layer: p.layer, feature: p.feature, measure: d.measure, x: d.x, y: d.y,
                    dx: cos(d.angle), dy: sin(d.angle), polygon: d.polygon,
                    key: d.measure > 0 ? -Foundation.log(u) / d.measure : .infinity))
        }
        return out
    }

    /// What becomes of the candidates of one tile that the selection keeps: per piece index, the geometry of its
    /// square or dash, or nil when it is left out; and the counts per layer.
    func decide(_ candidates: [Candidate], keeps: (Int32, Int32) -> Bool) -> (
        replaced: [Int: PieceGeometry?], counts: [Int32: Counts]
    ) {
        var replaced: [Int: PieceGeometry?] = [:]
        var counts: [Int32: Counts] = [:]
        // Candidates are in piece order, hence grouped by layer; polygons and lines of a layer apart.
        var start = 0
        let kept = candidates.filter { keeps($0.layer, $0.feature) }
        while start < kept.count {
            var end = start + 1
            while end < kept.count && kept[end].layer == kept[start].layer { end += 1 }
            for polygon in [true, false] {
                let group = kept[start..<end].filter { $0.polygon == polygon }
                guard !group.isEmpty else { continue }
                let total = group.reduce(0.0) { $0 + $1.measure }
                let ordered = group.sorted { ($0.key, $0.index) < ($1.key, $1.index) }
                var c = counts[kept[start].layer, default: Counts()]
                // In key order, each candidate is drawn while that brings the drawn total nearer to the source's
                // (a dash's length on the grid depends on its direction), so they differ by at most half of one.
                var drawn = 0.0
                for cand in ordered {
                    let (geometry, measure) = polygon ? square(cand) : dash(cand)
                    if drawn + measure / 2 <= total {
                        replaced[cand.index] = geometry
                        drawn += measure
                        c.keptAsPixel += 1
                    } else {
                        replaced[cand.index] = .some(nil)
                        c.reduced += 1
                    }
                }
                counts[kept[start].layer] = c
            }
            start = end
        }
        return (replaced, counts)
    }

    /// A `size` × `size` square centred on the candidate (positive area in y-down tile coordinates).
    private func square(_ c: Candidate) -> (geometry: PieceGeometry, area: Double) {
        let s = Int32(max(1, size.rounded()))
        let a = TilePoint(c.x &- s / 2, c.y &- s / 2)
        let ring = [a, TilePoint(a.x &+ s, a.y), TilePoint(a.x &+ s, a.y &+ s), TilePoint(a.x, a.y &+ s)]
        return (PieceGeometry(polygons: [[ring]]), Double(s) * Double(s))
    }

    /// A dash of length `size` through the line's centre, along its first-to-last direction.
    private func dash(_ c: Candidate) -> (geometry: PieceGeometry, length: Double) {
        let h = max(1, size) / 2
        let a = TilePoint(c.x &- Int32((c.dx * h).rounded()), c.y &- Int32((c.dy * h).rounded()))
        var b = TilePoint(c.x &+ Int32((c.dx * h).rounded()), c.y &+ Int32((c.dy * h).rounded()))
        if b == a { b = TilePoint(a.x &+ 1, a.y) }
        let (dx, dy) = (Double(b.x) - Double(a.x), Double(b.y) - Double(a.y))
        return (PieceGeometry(lines: [[a, b]]), (dx * dx + dy * dy).squareRoot())
    }
}

/// A piece smaller than the small-feature size in its tile (a polygon of at most `size`² units², a line of at most
/// `size` units), handed from `TileStage` to small-feature reduction in place of its geometry
/// (`PieceGeometry.dust`, never written as such): its centre, its true area in units² or length in units (not the
/// grid's rounding of it, which is biased for pieces this small) in 1/256 units, whether it is a polygon, and for a
/// line the direction from its first to its last point in 1/65536 turns. Held rounded as the spill stores it, so a
/// spilled build reduces exactly as one held in memory.
package struct SmallFeatureDust: Sendable, Equatable {
    package var x: Int32
    package var y: Int32
    /// The measure × 256, rounded.
    var measureWord: UInt32
    /// The angle in 1/65536 turns, rounded.
    var angleWord: UInt16
    package var polygon: Bool

    package init(x: Int32, y: Int32, measure: Double, polygon: Bool, angle: Double) {
        self.x = x
        self.y = y
        measureWord = UInt32(min(measure * 256, Double(UInt32.max)).rounded())
        self.polygon = polygon
        angleWord = UInt16(min(angle / (2 * Double.pi) * 65536, 65535).rounded())
    }

    /// Made from the stored words (`PieceEncoder`).
    init(x: Int32, y: Int32, measureWord: UInt32, angleWord: UInt16, polygon: Bool) {
        self.x = x
        self.y = y
        self.measureWord = measureWord
        self.angleWord = angleWord
        self.polygon = polygon
    }

    /// Area in units² (polygons) or length in units (lines).
    var measure: Double { Double(measureWord) / 256 }

    /// A line's direction in radians.
    var angle: Double { Double(angleWord) / 65536 * 2 * Double.pi }

    /// The dust piece of a clipped geometry (Web Mercator metres) in `tile`, nil when it is larger than the
    /// small-feature size there (or has no area or length).
    static func piece(_ g: Geometry, family: GeometryFamily, tile: TileCoordinate, parameters: TilingParameters)
        -> TilePiece?
    {
        guard family != .point, let b = g.bounds else { return nil }
        let unit = parameters.unit(zoom: tile.z)
        let size = parameters.smallFeatureSize
        var measure = 0.0
        if family == .polygon {
            // A piece wider and taller than the square may still be a thin sliver: measured, not judged by its box.
            for j in 0..<g.polygonCount {
                for (k, part) in g.partRange(ofPolygon: j).enumerated() {
                    let r = g.pointRange(ofPart: part)
                    let a = abs(signedRingArea(g.xy[(2 * r.lowerBound)..<(2 * r.upperBound)]))
                    measure += k == 0 ? a : -a
                }
            }
            measure /= unit * unit
            guard measure <= size * size else { return nil }
        } else {
            guard b.maxX - b.minX <= size * unit, b.maxY - b.minY <= size * unit else { return nil }
            for part in 0..<g.partCount {
                for i in g.pointRange(ofPart: part).dropFirst() {
                    let (p, q) = (g.point(i - 1), g.point(i))
                    measure += ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot()
                }
            }
            measure /= unit
            guard measure <= size else { return nil }
        }
        guard measure > 0, measure.isFinite else { return nil }
        var angle = 0.0
        if family == .line, g.pointCount >= 2 {
            let (p, q) = (g.point(0), g.point(g.pointCount - 1))
            // Tile y runs south: the direction's y is flipped.
            angle = atan2(p.y - q.y, q.x - p.x)
            if angle < 0 { angle += 2 * Double.pi }
        }
        var clamped = false
        let q = Quantizer(transform: TileTransform(tile: tile, extent: parameters.extent))
        guard let c = q.snap(x: (b.minX + b.maxX) / 2, y: (b.minY + b.maxY) / 2, clamped: &clamped) else { return nil }
        let d = SmallFeatureDust(x: c.x, y: c.y, measure: measure, polygon: family == .polygon, angle: angle)
        return TilePiece(tile: tile, geometry: .dust(d))
    }

    /// The six words a dust piece stood for in the command stream of older builds, `[MoveTo(1), x, y, measure ×
    /// 256, family, angle]` (x and y zigzag, family 0 for a polygon): what the incremental tile signature hashes.
    var commands: [UInt32] {
        [9, ZigZag.encode(x), ZigZag.encode(y), measureWord, polygon ? 0 : 1, UInt32(angleWord)]
    }
}
