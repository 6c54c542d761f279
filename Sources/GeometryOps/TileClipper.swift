internal import CGEOS
public import KartpackCore

/// Clips many geometries to one rectangle (a tile plus its buffer), preparing the rectangle once.
///
/// Per geometry: inside the rectangle's interior → returned unchanged (the same handle); not touching it → nil;
/// otherwise cut with `GEOSClipByRect_r`. Lines come back as (multi)lines; points exactly on the rectangle's
/// boundary are dropped (harmless for a buffered tile). The result keeps only parts of the input's family.
///
/// Polygon results of `GEOSClipByRect_r` are checked, because in GEOS 3.11 they can be invalid and can even be
/// the *complement* of the right answer as a valid polygon of the same area (GEOS PR #605): the result must be
/// valid and its area and first moments must equal those of the input's rings clipped in Swift
/// (`RectMoments`). When either check fails the polygon is cut with `GEOSIntersection_r` (OverlayNG) against
/// the rectangle instead (counted in `fallbackCount`, for tests). Input polygons must be valid (repair them first).
public final class TileClipper {
    /// The clipping rectangle.
    public let rect: Bounds
    let engine: GeometryEngine
    let prepared: PreparedGeometry
    var moments: RectMomentCalculator
    /// How many polygons needed the `GEOSIntersection_r` fallback so far (test instrumentation).
    private(set) var fallbackCount = 0

    /// Prepares `rect` (finite, positive width and height) for clipping on `engine`.
    public init(engine: GeometryEngine, rect: Bounds) throws(GeometryError) {
        self.engine = engine
        self.rect = rect
        prepared = try PreparedGeometry(engine.rectangle(rect))
        moments = RectMomentCalculator(rect: rect)
    }

    /// `g` cut to the rectangle, nil when nothing of its family remains.
    public func clip(_ g: EngineGeometry) throws(GeometryError) -> EngineGeometry? {
        guard let family = g.family else { return nil }  // empty: POINT EMPTY would make ClipByRect throw
        if try prepared.containsProperly(g) { return g }
        guard try prepared.intersects(g) else { return nil }
        let ctx = engine.ctx
        engine.resetMessages()
        let result = GEOSClipByRect_r(ctx, g.pointer, rect.minX, rect.minY, rect.maxX, rect.maxY)
        guard family == .polygon else {
            return try engine.keep(engine.own(result, "GEOSClipByRect"), family: family)
        }
        if let result {
            let clipped = EngineGeometry(engine: engine, pointer: result)
            if checked(clipped, against: g) { return try engine.keep(clipped, family: .polygon) }
        }
        fallbackCount += 1
        return try engine.intersection(g, prepared.base, family: .polygon)
    }

    /// True when a `GEOSClipByRect_r` polygon result is valid and covers the same region as `input` inside the
    /// rectangle. GEOS errors while checking count as a failed check.
    private func checked(_ clipped: EngineGeometry, against input: EngineGeometry) -> Bool {
        let ctx = engine.ctx
        engine.resetMessages()
        // The moments are O(n) and cheaper than the validity check, so they go first.
        guard let expected = moments.moments(ctx, input.pointer),
            let actual = moments.moments(ctx, clipped.pointer),
            expected.matches(actual, rect: rect)
        else { return false }
        return GEOSisValid_r(ctx, clipped.pointer) == 1
    }
}

extension GeometryEngine {
    /// `g` cut to `rect`; see `TileClipper`, which avoids rebuilding the rectangle when clipping many geometries
    /// to the same tile.
    public func clip(_ g: EngineGeometry, to rect: Bounds) throws(GeometryError) -> EngineGeometry? {
        try TileClipper(engine: self, rect: rect).clip(g)
    }
}
