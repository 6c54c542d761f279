internal import CGEOS
public import KartpackCore

extension GeometryEngine {
    // MARK: - Swift -> GEOS

    /// Builds a GEOS geometry from a KartpackCore `Geometry`, copying coordinates in bulk. Z and M are dropped.
    ///
    /// Throws `nonFinite`/`outOfRange` before any GEOS call when a coordinate is NaN, infinite or beyond
    /// `coordinateLimit`, and `malformed` when the offsets or rings are inconsistent (ring with fewer than four
    /// points or not closed, line with one point). Validity (self-intersection, …) is not checked: see `isValid`.
    public func prepare(_ g: Geometry) throws(GeometryError) -> EngineGeometry {
        try Self.checkCoordinates(g.xy)
        try Self.checkStructure(g)
        resetMessages()
        return try own(build(g), "GEOSGeom_create")
    }

    /// Throws `malformed` when `g`'s flat storage does not describe a geometry of its kind.
    public static func checkStructure(_ g: Geometry) throws(GeometryError) {
        guard g.xy.count % 2 == 0 else { throw .malformed("odd number of coordinate values") }
        let n = g.pointCount
        guard n > 0 else { return }
        if g.kind == .point && n != 1 { throw .malformed("point with \(n) coordinates") }
        if g.kind.family == .point { return }

        guard let first = g.partStarts.first, first == 0 else { throw .malformed("first part does not start at 0") }
        for i in 1..<g.partStarts.count where g.partStarts[i] <= g.partStarts[i - 1] {
            throw .malformed("part offsets not increasing at part \(i)")
        }
        guard Int(g.partStarts[g.partStarts.count - 1]) < n else { throw .malformed("part offset beyond the points") }

        if g.kind.family == .line {
            if g.kind == .lineString && g.partCount != 1 { throw .malformed("lineString with \(g.partCount) parts") }
            for i in 0..<g.partCount where g.pointRange(ofPart: i).count < 2 {
                throw .malformed("line part \(i) has fewer than 2 points")
            }
            return
        }

        guard let p0 = g.polygonStarts.first, p0 == 0 else { throw .malformed("first polygon does not start at 0") }
        for j in 1..<g.polygonStarts.count where g.polygonStarts[j] <= g.polygonStarts[j - 1] {
            throw .malformed("polygon offsets not increasing at polygon \(j)")
        }
        guard Int(g.polygonStarts[g.polygonStarts.count - 1]) < g.partCount else {
            throw .malformed("polygon offset beyond the rings")
        }
        if g.kind == .polygon && g.polygonCount != 1 { throw .malformed("polygon with \(g.polygonCount) polygons") }
        for i in 0..<g.partCount {
            let r = g.pointRange(ofPart: i)
            guard r.count >= 4 else { throw .malformed("ring \(i) has fewer than 4 points") }
            let a = 2 * r.lowerBound
            let b = 2 * (r.upperBound - 1)
            guard g.xy[a] == g.xy[b], g.xy[a + 1] == g.xy[b + 1] else { throw .malformed("ring \(i) is not closed") }
        }
    }

    /// Builds the GEOS geometry; nil (with a GEOS message) on failure. Input was checked by `checkStructure`.
    private func build(_ g: Geometry) -> OpaquePointer? {
        let n = g.pointCount
        if n == 0 {
            switch g.kind {
            case .point: return GEOSGeom_createEmptyPoint_r(ctx)
            case .lineString: return GEOSGeom_createEmptyLineString_r(ctx)
            case .polygon: return GEOSGeom_createEmptyPolygon_r(ctx)
            case .multiPoint: return GEOSGeom_createEmptyCollection_r(ctx, GEOSTypeID.multiPoint.rawValue)
            case .multiLineString:
                return GEOSGeom_createEmptyCollection_r(ctx, GEOSTypeID.multiLineString.rawValue)
            case .multiPolygon: return GEOSGeom_createEmptyCollection_r(ctx, GEOSTypeID.multiPolygon.rawValue)
            }
        }
        return g.xy.withUnsafeBufferPointer { buf -> OpaquePointer? in
            guard let base = buf.baseAddress else { return nil }
            func sequence(_ r: Range<Int>) -> OpaquePointer? {
                GEOSCoordSeq_copyFromBuffer_r(ctx, base + 2 * r.lowerBound, UInt32(r.count), 0, 0)
            }
            switch g.kind {
            case .point:
                guard let s = sequence(0..<1) else { return nil }
                return GEOSGeom_createPoint_r(ctx, s)
            case .multiPoint:
                var parts: [OpaquePointer?] = []
                parts.reserveCapacity(n)
                for i in 0..<n {
                    guard let p = GEOSGeom_createPointFromXY_r(ctx, base[2 * i], base[2 * i + 1]) else {
                        return destroyAll(parts)
                    }
                    parts.append(p)
                }
                return collect(parts, .multiPoint)
            case .lineString, .multiLineString:
                var parts: [OpaquePointer?] = []
                for i in 0..<g.partCount {
                    guard let s = sequence(g.pointRange(ofPart: i)), let line = GEOSGeom_createLineString_r(ctx, s)
                    else { return destroyAll(parts) }
                    parts.append(line)
                }
                return g.kind == .lineString ? parts[0] : collect(parts, .multiLineString)
            case .polygon, .multiPolygon:
                var polygons: [OpaquePointer?] = []
                for j in 0..<g.polygonCount {
                    var rings: [OpaquePointer?] = []
                    for i in g.partRange(ofPolygon: j) {
                        // createLinearRing takes ownership of the sequence.
                        guard let s = sequence(g.pointRange(ofPart: i)), let ring = GEOSGeom_createLinearRing_r(ctx, s)
                        else {
                            _ = destroyAll(rings)
                            return destroyAll(polygons)
                        }
                        rings.append(ring)
                    }
                    // createPolygon takes the shell and the hole rings, not the C array holding the holes.
                    var holes = Array(rings.dropFirst())
                    let polygon = holes.withUnsafeMutableBufferPointer {
                        GEOSGeom_createPolygon_r(ctx, rings[0], $0.baseAddress, UInt32($0.count))
                    }
                    guard let polygon else { return destroyAll(polygons) }
                    polygons.append(polygon)
                }
                return g.kind == .polygon ? polygons[0] : collect(polygons, .multiPolygon)
            }
        }
    }

    /// Makes a collection that takes ownership of `parts` (not of the array). Nil on failure.
    func collect(_ parts: [OpaquePointer?], _ type: GEOSTypeID) -> OpaquePointer? {
        var parts = parts
        let result = parts.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(ctx, type.rawValue, $0.baseAddress, UInt32($0.count))
        }
        return result
    }

    /// Destroys owned geometries after a failed build step; returns nil for `return destroyAll(…)`.
    func destroyAll(_ parts: [OpaquePointer?]) -> OpaquePointer? {
        for case let p? in parts { GEOSGeom_destroy_r(ctx, p) }
        return nil
    }

    // MARK: - GEOS -> Swift

    /// Copies a GEOS geometry back into a KartpackCore `Geometry`, keeping only the parts of `family` (by default
    /// the highest-dimension family present, so a GEOMETRYCOLLECTION from an overlay keeps its polygons).
    ///
    /// Polygons come back as exterior ring then holes, rings closed, `polygonStarts` filled; one part gives the
    /// single kind, several the multi kind. Returns nil when nothing of the family is left (empty geometry).
    /// Ring orientation is whatever GEOS produced (clipping and snapping may reverse rings): orient last.
    public func geometry(_ h: EngineGeometry, family: GeometryFamily? = nil) throws(GeometryError) -> Geometry? {
        guard let family = family ?? highestFamily(h.pointer) else { return nil }
        var out = FlatBuilder()
        resetMessages()
        try append(h.pointer, family: family, to: &out)
        guard out.count > 0 else { return nil }
        let multi = out.count > 1
        switch family {
        case .point:
            return Geometry(kind: multi ? .multiPoint : .point, xy: out.xy, partStarts: [0])
        case .line:
            return Geometry(kind: multi ? .multiLineString : .lineString, xy: out.xy, partStarts: out.partStarts)
        case .polygon:
            return Geometry(
                kind: multi ? .multiPolygon : .polygon, xy: out.xy, partStarts: out.partStarts,
                polygonStarts: out.polygonStarts)
        }
    }

    /// Flat storage under construction.
    struct FlatBuilder {
        var xy: [Double] = []
        var partStarts: [Int32] = []
        var polygonStarts: [Int32] = []
        /// Points, lines or polygons appended.
        var count = 0
    }

    /// The highest-dimension family with a non-empty part, nil when everything is empty.
    func highestFamily(_ g: OpaquePointer) -> GeometryFamily? {
        guard let type = GEOSTypeID(ctx, g) else { return nil }
        if let f = type.simpleFamily { return GEOSisEmpty_r(ctx, g) == 0 ? f : nil }
        var best: GeometryFamily?
        let n = GEOSGetNumGeometries_r(ctx, g)
        var i: Int32 = 0
        while i < n {
            if let part = GEOSGetGeometryN_r(ctx, g, i), let f = highestFamily(part),
                f.dimension > (best?.dimension ?? -1)
            {
                best = f
                if f == .polygon { break }
            }
            i += 1
        }
        return best
    }

    /// Appends the parts of `family` found in `g` (recursing into collections). `g` is borrowed.
    private func append(_ g: OpaquePointer, family: GeometryFamily, to out: inout FlatBuilder) throws(GeometryError) {
        guard let type = GEOSTypeID(ctx, g) else { throw failure("GEOSGeomTypeId") }
        if type.isCollection {
            let n = GEOSGetNumGeometries_r(ctx, g)
            guard n >= 0 else { throw failure("GEOSGetNumGeometries") }
            for i in 0..<n {
                guard let part = GEOSGetGeometryN_r(ctx, g, i) else { throw failure("GEOSGetGeometryN") }
                try append(part, family: family, to: &out)
            }
            return
        }
        guard type.simpleFamily == family else { return }
        switch type {
        case .point:
            guard try predicate(GEOSisEmpty_r(ctx, g), "GEOSisEmpty") == false else { return }
            try appendCoordinates(of: g, to: &out)
            out.count += 1
        case .lineString, .linearRing:
            let start = Int32(out.xy.count / 2)
            let points = try appendCoordinates(of: g, to: &out)
            if points >= 2 {
                out.partStarts.append(start)
                out.count += 1
            } else {
                out.xy.removeLast(2 * points)
            }
        case .polygon:
            guard let shell = GEOSGetExteriorRing_r(ctx, g) else { throw failure("GEOSGetExteriorRing") }
            let firstPart = Int32(out.partStarts.count)
            guard try appendRing(shell, to: &out) else { return }
            out.polygonStarts.append(firstPart)
            out.count += 1
            let holes = GEOSGetNumInteriorRings_r(ctx, g)
            guard holes >= 0 else { throw failure("GEOSGetNumInteriorRings") }
            for i in 0..<holes {
                guard let hole = GEOSGetInteriorRingN_r(ctx, g, i) else { throw failure("GEOSGetInteriorRingN") }
                _ = try appendRing(hole, to: &out)
            }
        default:
            return
        }
    }

    /// Appends a (borrowed) ring as one part; false when it is empty or degenerate and was skipped.
    private func appendRing(_ ring: OpaquePointer, to out: inout FlatBuilder) throws(GeometryError) -> Bool {
        let start = Int32(out.xy.count / 2)
        let points = try appendCoordinates(of: ring, to: &out)
        guard points >= 4 else {
            out.xy.removeLast(2 * points)
            return false
        }
        out.partStarts.append(start)
        return true
    }

    /// Appends the XY coordinates of a (borrowed) point, line or ring in bulk; returns how many points.
    @discardableResult
    private func appendCoordinates(of g: OpaquePointer, to out: inout FlatBuilder) throws(GeometryError) -> Int {
        // The sequence is borrowed from the geometry: never freed here.
        guard let seq = GEOSGeom_getCoordSeq_r(ctx, g) else { throw failure("GEOSGeom_getCoordSeq") }
        var size: UInt32 = 0
        guard GEOSCoordSeq_getSize_r(ctx, seq, &size) != 0 else { throw failure("GEOSCoordSeq_getSize") }
        let n = Int(size)
        guard n > 0 else { return 0 }
        let offset = out.xy.count
        out.xy.append(contentsOf: repeatElement(0, count: 2 * n))
        let ok = out.xy.withUnsafeMutableBufferPointer { buf -> Int32 in
            guard let base = buf.baseAddress else { return 0 }
            return GEOSCoordSeq_copyToBuffer_r(ctx, seq, base + offset, 0, 0)
        }
        guard ok != 0 else { throw failure("GEOSCoordSeq_copyToBuffer") }
        return n
    }
}
