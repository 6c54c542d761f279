import GeometryAlgorithms
public import KartpackCore

extension GeometryEngine {
    /// Whether polygon `g`, whose GEOS copy is `handle`, is valid. A polygon of one ring is checked in Swift in
    /// O(n log n) (`SegmentSweep.isSimpleRing`: simple, with an area), because GEOS's test is quadratic for rings
    /// whose edges overlap each other's extents (a dense star); anything else goes to `isValid(_:)`.
    public func isValid(_ g: Geometry, handle: EngineGeometry) throws(GeometryError) -> Bool {
        if g.kind.family == .polygon, g.polygonCount == 1, g.partCount == 1 {
            guard let simple = SegmentSweep.isSimpleRing(g.xy[...]) else { throw .interrupted }
            return simple
        }
        return try isValid(handle)
    }
}
