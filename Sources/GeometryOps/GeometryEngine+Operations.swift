internal import CGEOS
public import KartpackCore

extension GeometryEngine {
    // MARK: - Queries

    /// True when the geometry has no coordinates.
    public func isEmpty(_ g: EngineGeometry) throws(GeometryError) -> Bool {
        resetMessages()
        return try predicate(GEOSisEmpty_r(ctx, g.pointer), "GEOSisEmpty")
    }

    /// True when GEOS considers the geometry valid (OGC rules).
    public func isValid(_ g: EngineGeometry) throws(GeometryError) -> Bool {
        resetMessages()
        return try predicate(GEOSisValid_r(ctx, g.pointer), "GEOSisValid")
    }

    /// GEOS's explanation, e.g. `Valid Geometry`, `Self-intersection[5 5]` or `Hole lies outside shell[4 13]`,
    /// for diagnostics.
    public func validityReason(_ g: EngineGeometry) throws(GeometryError) -> String {
        resetMessages()
        guard let text = GEOSisValidReason_r(ctx, g.pointer) else { throw failure("GEOSisValidReason") }
        defer { GEOSFree_r(ctx, text) }
        return String(cString: text)
    }

    /// The area (0 for points and lines).
    public func area(_ g: EngineGeometry) throws(GeometryError) -> Double {
        var value = 0.0
        resetMessages()
        guard GEOSArea_r(ctx, g.pointer, &value) != 0 else { throw failure("GEOSArea") }
        return value
    }

    /// A point guaranteed to lie on the geometry (inside a polygon, on a line), or nil when it is empty.
    public func pointOnSurface(_ g: EngineGeometry) throws(GeometryError) -> (x: Double, y: Double)? {
        guard try !isEmpty(g) else { return nil }
        resetMessages()
        let p = try own(GEOSPointOnSurface_r(ctx, g.pointer), "GEOSPointOnSurface")
        guard try !isEmpty(p) else { return nil }
        var x = 0.0
        var y = 0.0
        guard GEOSGeomGetX_r(ctx, p.pointer, &x) != 0, GEOSGeomGetY_r(ctx, p.pointer, &y) != 0 else {
            throw failure("GEOSGeomGetX")
        }
        return (x, y)
    }

    /// Where a polygon's label goes: the centre of its maximum inscribed circle (the pole of inaccessibility,
    /// `GEOSMaximumInscribedCircle_r`, to 1/1000 of the polygon's size), or its point on surface when GEOS gives
    /// none. Nil when the geometry is empty.
    public func labelPoint(_ g: EngineGeometry) throws(GeometryError) -> (x: Double, y: Double)? {
        guard let b = try bounds(g) else { return nil }
        let size = max(b.maxX - b.minX, b.maxY - b.minY)
        guard size > 0, g.family == .polygon else { return try pointOnSurface(g) }
        resetMessages()
        guard let line = GEOSMaximumInscribedCircle_r(ctx, g.pointer, size / 1000) else { return try pointOnSurface(g) }
        let circle = EngineGeometry(engine: self, pointer: line)
        guard let start = GEOSGeomGetStartPoint_r(ctx, circle.pointer) else { return try pointOnSurface(g) }
        let centre = EngineGeometry(engine: self, pointer: start)
        var x = 0.0
        var y = 0.0
        guard GEOSGeomGetX_r(ctx, centre.pointer, &x) != 0, GEOSGeomGetY_r(ctx, centre.pointer, &y) != 0,
            x.isFinite, y.isFinite
        else { return try pointOnSurface(g) }
        return (x, y)
    }

    // MARK: - Repair

    /// Repairs a geometry with GEOS MakeValid, method STRUCTURE, collapsed parts dropped, and keeps only the parts
    /// of `family` (polygons for a polygon layer). Nil when nothing of the family is left.
    ///
    /// STRUCTURE unions overlapping parts and turns a bowtie into two triangles; `buffer(0)` is never used
    /// (it keeps one triangle of a bowtie).
    public func makeValid(_ g: EngineGeometry, family: GeometryFamily) throws(GeometryError) -> EngineGeometry? {
        resetMessages()
        guard let params = GEOSMakeValidParams_create_r(ctx) else { throw failure("GEOSMakeValidParams_create") }
        defer { GEOSMakeValidParams_destroy_r(ctx, params) }
        guard GEOSMakeValidParams_setMethod_r(ctx, params, GEOS_MAKE_VALID_STRUCTURE) != 0,
            GEOSMakeValidParams_setKeepCollapsed_r(ctx, params, 0) != 0
        else { throw failure("GEOSMakeValidParams_set") }
        let fixed = try own(GEOSMakeValidWithParams_r(ctx, g.pointer, params), "GEOSMakeValidWithParams")
        return try keep(fixed, family: family)
    }

    // MARK: - Simplification

    // MARK: - Extent

    /// The bounding box (`GEOSGeom_getExtent_r`), nil for an empty geometry.
    public func bounds(_ g: EngineGeometry) throws(GeometryError) -> Bounds? {
        guard try !isEmpty(g) else { return nil }
        var minX = 0.0, minY = 0.0, maxX = 0.0, maxY = 0.0
        resetMessages()
        guard GEOSGeom_getExtent_r(ctx, g.pointer, &minX, &minY, &maxX, &maxY) != 0 else {
            throw failure("GEOSGeom_getExtent")
        }
        return Bounds(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
    }

    // MARK: - Precision

    /// Snaps every coordinate to a grid of `gridSize` (1 for integer tile coordinates) with
    /// `GEOS_PREC_VALID_OUTPUT`: the result is valid and collapsed parts are removed. Nil when the whole geometry
    /// collapses (a sub-pixel polygon). Rings may come back in any orientation. Input must be valid.
    public func snapToGrid(_ g: EngineGeometry, gridSize: Double) throws(GeometryError) -> EngineGeometry? {
        try Self.checkParameter(gridSize, "gridSize")
        guard gridSize > 0 else { throw .invalidArgument("gridSize must be positive") }
        guard let family = g.family else { return nil }
        resetMessages()
        let snapped = try own(
            GEOSGeom_setPrecision_r(ctx, g.pointer, gridSize, Int32(GEOS_PREC_VALID_OUTPUT.rawValue)),
            "GEOSGeom_setPrecision")
        return try keep(snapped, family: family)
    }

    // MARK: - Overlay

    /// The intersection of two geometries (OverlayNG), keeping the parts of `family` (by default the highest
    /// family present in the result). Nil when empty.
    public func intersection(
        _ a: EngineGeometry, _ b: EngineGeometry, family: GeometryFamily? = nil
    ) throws(GeometryError) -> EngineGeometry? {
        resetMessages()
        let result = try own(GEOSIntersection_r(ctx, a.pointer, b.pointer), "GEOSIntersection")
        guard let family = family ?? result.family else { return nil }
        return try keep(result, family: family)
    }

    /// The geometry grown (or shrunk, for a negative distance) by `distance` in its own units; overlapping parts
    /// are unioned. Polygonal result; nil when nothing is left. Wraps `GEOSBuffer_r` (8 segments per quadrant).
    public func buffer(_ g: EngineGeometry, distance: Double) throws(GeometryError) -> EngineGeometry? {
        guard distance.isFinite, abs(distance) < GeometryEngine.coordinateLimit else {
            throw GeometryError.invalidArgument("buffer distance \(distance)")
        }
        resetMessages()
        let result = try own(GEOSBuffer_r(ctx, g.pointer, distance, 8), "GEOSBuffer")
        return try keep(result, family: .polygon)
    }

    /// A rectangle polygon.
    public func rectangle(_ rect: Bounds) throws(GeometryError) -> EngineGeometry {
        try Self.checkRect(rect)
        resetMessages()
        return try own(
            GEOSGeom_createRectangle_r(ctx, rect.minX, rect.minY, rect.maxX, rect.maxY), "GEOSGeom_createRectangle")
    }

    // MARK: - Family filter

    /// Keeps only the non-empty parts of `family`: `g` itself when it already is of the family's single or
    /// multi type, a new (multi) geometry of cloned parts otherwise, nil when nothing is left.
    func keep(_ g: EngineGeometry, family: GeometryFamily) throws(GeometryError) -> EngineGeometry? {
        guard let type = GEOSTypeID(ctx, g.pointer) else { throw failure("GEOSGeomTypeId") }
        let types = GEOSTypeID.types(of: family)
        if type == types.single || type == types.multi {
            return try isEmpty(g) ? nil : g
        }
        var parts: [OpaquePointer] = []
        try gatherParts(g.pointer, family: family, into: &parts)
        guard !parts.isEmpty else { return nil }
        var clones: [OpaquePointer?] = []
        clones.reserveCapacity(parts.count)
        resetMessages()
        for p in parts {
            guard let c = GEOSGeom_clone_r(ctx, p) else {
                _ = destroyAll(clones)
                throw failure("GEOSGeom_clone")
            }
            clones.append(c)
        }
        if clones.count == 1, let only = clones[0] { return EngineGeometry(engine: self, pointer: only) }
        return try own(collect(clones, types.multi), "GEOSGeom_createCollection")
    }

    /// Collects borrowed pointers to the non-empty simple parts of `family` inside `g`.
    private func gatherParts(
        _ g: OpaquePointer, family: GeometryFamily, into parts: inout [OpaquePointer]
    ) throws(GeometryError) {
        guard let type = GEOSTypeID(ctx, g) else { throw failure("GEOSGeomTypeId") }
        if type.isCollection {
            let n = GEOSGetNumGeometries_r(ctx, g)
            guard n >= 0 else { throw failure("GEOSGetNumGeometries") }
            for i in 0..<n {
                guard let part = GEOSGetGeometryN_r(ctx, g, i) else { throw failure("GEOSGetGeometryN") }
                try gatherParts(part, family: family, into: &parts)
            }
        } else if type.simpleFamily == family, try !predicate(GEOSisEmpty_r(ctx, g), "GEOSisEmpty") {
            parts.append(g)
        }
    }
}
