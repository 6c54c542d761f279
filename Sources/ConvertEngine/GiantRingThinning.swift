import GeometryAlgorithms
import GeometryOps
import KartpackCore

/// A giant ring whose detail lies far below the max zoom's grid (a dense saw-tooth or star: hundreds of thousands
/// of teeth narrower than a grid unit) is thinned once before the descent (`giant_ring_thinned`).
///
/// From zoom 11 on, tile edges cut every such tooth into separate slivers, so the pieces of one zoom hold far more
/// vertices than the ring and their volume doubles per zoom; every piece is clipped, checked and quantized. The
/// teeth cannot be drawn at any zoom (the grid repair redraws them on blocks), so runs of teeth within the max
/// zoom's simplification tolerance are joined into one tooth of the same height and width
/// (`CorridorThinning`): the ring moves by at most that tolerance (one grid unit of the max zoom by default, well
/// within a pixel), the share of each height the teeth cover stays, and every deeper piece holds a fraction of
/// the slivers. Only a single ring of at least `giantRingVertices` vertices, at least half of them tips of teeth
/// narrower than the tolerance (`CorridorThinning.narrowTipCount`: a smooth dense curve has none), that loses at
/// least three quarters of them is thinned, and only when the result is still simple
/// (`SegmentSweep.isSimpleRing`); any other geometry is tiled as it is.
extension TileStage {
    /// Vertices from which a ring is considered for thinning.
    static let giantRingVertices = 1 << 16
    /// How many vertices one thinned segment may span at most (the thinning costs O(n × window²)).
    static let thinningWindow = 16

    /// The polygon `g` thinned for the descent to `maxZoom`, or nil when it is not such a giant ring (or thinning
    /// would not pay or not be simple).
    func thinnedGiantRing(_ g: Geometry?, maxZoom: Int) throws(GeometryError) -> Geometry? {
        guard let g, g.kind.family == .polygon, g.polygonCount == 1, g.partCount == 1,
            g.pointCount >= Self.giantRingVertices
        else { return nil }
        let tolerance = parameters.simplify * parameters.unit(zoom: maxZoom)
        guard tolerance > 0, CorridorThinning.narrowTipCount(g.xy[...], tolerance: tolerance) >= g.pointCount / 2
        else { return nil }
        guard let thinned = CorridorThinning.thinned(g.xy[...], tolerance: tolerance, window: Self.thinningWindow)
        else { throw .interrupted }
        guard thinned.count / 2 <= g.pointCount / 4 else { return nil }
        guard let simple = SegmentSweep.isSimpleRing(thinned[...]) else { throw .interrupted }
        guard simple else { return nil }
        return Geometry.polygons([[thinned]])
    }
}
