internal import CGEOS
public import KartpackCore

/// Collects STRtree query hits; passed to the C callback as unretained userdata.
private final class QueryHits {
    var items: [Int] = []
}

/// A spatial index over polygons answering "which polygons contain this point".
///
/// An STRtree narrows candidates by envelope; prepared geometries give the exact answer. All polygons are
/// inserted in `init` and the tree is only queried afterwards: GEOS 3.11.1 builds the tree on the first query,
/// and an insert after that is a use-after-free. Not `Sendable`: use it on its engine's thread.
public final class PolygonIndex {
    /// How many polygons were given (indices run `0..<count`).
    public let count: Int
    let engine: GeometryEngine
    let prepared: [PreparedGeometry?]
    let tree: OpaquePointer

    /// Indexes `polygons` (each of the polygon family; empty ones never match). Throws `invalidArgument` for a
    /// point or line geometry, and the errors of `GeometryEngine.prepare` for unusable coordinates.
    public init(engine: GeometryEngine, polygons: [Geometry]) throws(GeometryError) {
        self.engine = engine
        count = polygons.count
        var prepared: [PreparedGeometry?] = []
        prepared.reserveCapacity(polygons.count)
        for (i, p) in polygons.enumerated() {
            guard p.kind.family == .polygon else {
                throw .invalidArgument("PolygonIndex: geometry \(i) is a \(p.kind.rawValue), not a polygon")
            }
            let g = try engine.prepare(p)
            prepared.append(try engine.isEmpty(g) ? nil : PreparedGeometry(g))
        }
        self.prepared = prepared
        engine.resetMessages()
        guard let tree = GEOSSTRtree_create_r(engine.ctx, 10) else { throw engine.failure("GEOSSTRtree_create") }
        self.tree = tree
        // Every insert happens here, before any query. The tree copies envelopes and owns no geometry;
        // items are index + 1 so that none is a null pointer.
        for (i, p) in prepared.enumerated() {
            guard let p else { continue }
            GEOSSTRtree_insert_r(engine.ctx, tree, p.base.pointer, UnsafeMutableRawPointer(bitPattern: i + 1))
        }
    }

    deinit {
        GEOSSTRtree_destroy_r(engine.ctx, tree)
    }

    /// True when some polygon shares at least one point with `g` (any geometry; its envelope narrows the
    /// candidates, prepared geometries decide).
    public func intersectsAny(_ g: Geometry) throws(GeometryError) -> Bool {
        let handle = try engine.prepare(g)
        engine.resetMessages()
        for i in candidates(of: handle.pointer) {
            guard i >= 0, i < prepared.count, let p = prepared[i] else { continue }
            if try p.intersects(handle) { return true }
        }
        return false
    }

    /// The indices (ascending) of the polygons that share at least one point with `g` (any geometry; its envelope
    /// narrows the candidates, prepared geometries decide).
    public func intersecting(_ g: Geometry) throws(GeometryError) -> [Int] {
        let handle = try engine.prepare(g)
        engine.resetMessages()
        var result: [Int] = []
        for i in candidates(of: handle.pointer) {
            guard i >= 0, i < prepared.count, let p = prepared[i] else { continue }
            if try p.intersects(handle) { result.append(i) }
        }
        return result
    }

    /// The indices (ascending) of the polygons containing the point, its boundary included.
    public func containing(x: Double, y: Double) throws(GeometryError) -> [Int] {
        guard abs(x) <= GeometryEngine.coordinateLimit, abs(y) <= GeometryEngine.coordinateLimit else {
            throw .invalidArgument("query point (\(x), \(y)) is not finite")
        }
        let ctx = engine.ctx
        engine.resetMessages()
        let point = try engine.own(GEOSGeom_createPointFromXY_r(ctx, x, y), "GEOSGeom_createPointFromXY")
        var result: [Int] = []
        for i in candidates(of: point.pointer) {
            guard i >= 0, i < prepared.count, let p = prepared[i] else { continue }
            if try p.intersects(point) { result.append(i) }
        }
        return result
    }

    /// The indices (ascending) of the polygons whose envelope meets `geometry`'s: the tree's candidates, which the
    /// prepared polygons then decide.
    private func candidates(of geometry: OpaquePointer) -> [Int] {
        let hits = QueryHits()
        withExtendedLifetime(hits) {
            GEOSSTRtree_query_r(
                engine.ctx, tree, geometry,
                { item, userdata in
                    guard let userdata else { return }
                    let hits = Unmanaged<QueryHits>.fromOpaque(userdata).takeUnretainedValue()
                    hits.items.append(Int(bitPattern: item) - 1)
                }, Unmanaged.passUnretained(hits).toOpaque())
        }
        return hits.items.sorted()
    }
}
