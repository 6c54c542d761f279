internal import CGEOS
import GeometryAlgorithms
public import KartpackCore

/// Clips many geometries to one rectangle (a tile plus its buffer), preparing the rectangle once.
///
/// Per geometry: inside the rectangle's interior → returned unchanged (the same handle); not touching it → nil;
/// otherwise cut. Polygons are cut in Swift (`RectangleClipper.clipPolygons`, O(n + k log k) for n vertices and
/// k crossings of the rectangle's boundary, polling `CancellationFlag.process`); lines and points with
/// `GEOSClipByRect_r`. Lines come back as (multi)lines; points exactly on the rectangle's boundary are dropped
/// (harmless for a buffered tile). The result keeps only parts of the input's family.
///
/// Every polygon result is checked: its area and first moments must equal those of the input's rings clipped
/// with Sutherland–Hodgman (`RectMoments`, O(n)). When the Swift cut finds crossings that do not pair up (invalid
/// input) or fails that check, the polygon goes the old way (counted in `fallbackCount`, for tests):
/// `GEOSClipByRect_r`, whose result must be valid and pass the same check, because in GEOS 3.11 it can be invalid
/// and can even be the *complement* of the right answer (GEOS PR #605; its reconnection is also O(k²) and cannot
/// be interrupted), else `GEOSIntersection_r` (OverlayNG) against the rectangle. Input polygons must be valid
/// (repair them first).
public final class TileClipper {
    /// The clipping rectangle.
    public let rect: Bounds
    let engine: GeometryEngine
    let prepared: PreparedGeometry
    var moments: RectMomentCalculator
    /// How many polygons needed the GEOS fallback so far (test instrumentation).
    private(set) var fallbackCount = 0

    /// Prepares `rect` (finite, positive width and height) for clipping on `engine`.
    public init(engine: GeometryEngine, rect: Bounds) throws(GeometryError) {
        self.engine = engine
        self.rect = rect
        prepared = try PreparedGeometry(engine.rectangle(rect))
        moments = RectMomentCalculator(rect: rect, scratch: engine.momentScratch)
        engine.momentScratch = RectMomentCalculator.Scratch()
    }

    // The buffers go back to the engine for the next tile's clipper (`GeometryEngine.momentScratch`).
    deinit { engine.momentScratch = moments.scratch }

    /// `g` cut to the rectangle, nil when nothing of its family remains.
    public func clip(_ g: EngineGeometry) throws(GeometryError) -> EngineGeometry? {
        guard let family = g.family else { return nil }  // empty: POINT EMPTY would make ClipByRect throw
        if family == .polygon { return try clipPolygons(g) }
        if try prepared.containsProperly(g) { return g }
        guard try prepared.intersects(g) else { return nil }
        let ctx = engine.ctx
        engine.resetMessages()
        let result = GEOSClipByRect_r(ctx, g.pointer, rect.minX, rect.minY, rect.maxX, rect.maxY)
        return try engine.keep(engine.own(result, "GEOSClipByRect"), family: family)
    }

    /// Polygons cut in Swift; GEOS (see the type) when that cut is inconsistent or fails the moment check.
    private func clipPolygons(_ g: EngineGeometry) throws(GeometryError) -> EngineGeometry? {
        guard let input = try engine.geometry(g, family: .polygon), let b = input.bounds else { return nil }
        if rect.minX < b.minX, b.maxX < rect.maxX, rect.minY < b.minY, b.maxY < rect.maxY { return g }
        if b.maxX <= rect.minX || rect.maxX <= b.minX || b.maxY <= rect.minY || rect.maxY <= b.minY { return nil }
        let r = rect
        switch RectangleClipper.clipPolygons(input, to: r, cancellation: .process) {
        case .empty:
            return nil
        case .cancelled:
            throw .interrupted
        case .polygons(let out):
            let clipped = try engine.prepare(out)
            engine.resetMessages()
            if let expected = moments.moments(engine.ctx, g.pointer),
                let actual = moments.moments(engine.ctx, clipped.pointer), expected.matches(actual, rect: rect)
            {
                return clipped
            }
        case .inconsistent:
            break
        }
        fallbackCount += 1
        return try clipWithGEOS(g)
    }

    /// What `clipPolygons(_:boxes:handle:)` made of a Swift polygon piece.
    public enum SwiftPolygonClip {
        /// Wholly inside the rectangle's interior: the input as it is.
        case unchanged
        /// Nothing of it lies inside.
        case empty
        /// The part inside (the same geometry the GEOS-handle `clip(_:)` would return, copied out).
        case clipped(Geometry)
    }

    /// `clip(_:)` for valid polygons held in Swift: the same decisions and the same result, without a round trip
    /// through GEOS per piece. `boxes` are the input's `RectangleClipper.polygonBoxes`; `handle` gives the input
    /// as a GEOS geometry and is called only when the Swift cut needs the GEOS fallback (see the type).
    public func clipPolygons(
        _ input: Geometry, boxes: [Bounds], handle: () throws(GeometryError) -> EngineGeometry
    ) throws(GeometryError) -> SwiftPolygonClip {
        var b = Bounds.empty
        for box in boxes { b.include(box) }
        guard !b.isEmpty else { return .empty }
        if rect.minX < b.minX, b.maxX < rect.maxX, rect.minY < b.minY, b.maxY < rect.maxY { return .unchanged }
        if b.maxX <= rect.minX || rect.maxX <= b.minX || b.maxY <= rect.minY || rect.maxY <= b.minY { return .empty }
        let r = rect
        switch RectangleClipper.clipPolygons(input, to: r, boxes: boxes, cancellation: .process) {
        case .empty:
            return .empty
        case .cancelled:
            throw .interrupted
        case .polygons(let out):
            // The checks GEOS's constructor made when the cut went through it.
            try GeometryEngine.checkCoordinates(out.xy)
            try GeometryEngine.checkStructure(out)
            let expected = moments.moments(of: input, boxes: boxes)
            if expected.matches(moments.moments(of: out), rect: rect) { return .clipped(out) }
        case .inconsistent:
            break
        }
        fallbackCount += 1
        guard let clipped = try clipWithGEOS(try handle()), let g = try engine.geometry(clipped, family: .polygon)
        else { return .empty }
        return .clipped(g)
    }

    /// The old way for polygons: `GEOSClipByRect_r`, checked, else `GEOSIntersection_r`.
    private func clipWithGEOS(_ g: EngineGeometry) throws(GeometryError) -> EngineGeometry? {
        engine.resetMessages()
        let result = GEOSClipByRect_r(engine.ctx, g.pointer, rect.minX, rect.minY, rect.maxX, rect.maxY)
        if let result {
            let clipped = EngineGeometry(engine: engine, pointer: result)
            if checked(clipped, against: g) { return try engine.keep(clipped, family: .polygon) }
        }
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
