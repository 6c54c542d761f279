import KartpackCore

/// Reads Well-Known Binary (OGC Simple Features 1.2.1 §8.2) into flat parts, with hard limits, so no blob can make
/// the reader allocate more than its own size suggests, recurse without bound or read past its end.
///
/// Type codes: ISO (`1…7`, + 1000 Z, + 2000 M, + 3000 ZM) and the EWKB/PostGIS flags (`0x80000000` Z, `0x40000000`
/// M, `0x20000000` an SRID follows the type and is skipped). Point, LineString, Polygon, their Multi forms and
/// GeometryCollection (nested ones too) are read; Z and M values are skipped, as tiles are two-dimensional. Curves,
/// surfaces, TINs and triangles (types 8–17) are `unsupported_geometry_type`.
///
/// Limits: every count is checked against the bytes left before anything is reserved (`bad_wkb`: a count of 2³²
/// points in a 40-byte blob); collections nest at most `maxDepth` deep and a geometry holds at most `maxVertices`
/// vertices and `maxParts` parts (`too_complex`); each x and y must be finite (`non_finite_coordinate`) and within
/// ±`maxAbsoluteCoordinate` (`out_of_domain`), as in the Shapefile reader. A point of NaN x and y is an empty point
/// (how WKB writes `POINT EMPTY`) and holds nothing.
public struct WKBReader {
    /// The caps of one geometry.
    public struct Limits: Sendable, Hashable {
        /// Deepest nesting of collections (a Multi* counts one level, each GeometryCollection one).
        public var maxDepth = 32
        /// Most vertices (the Shapefile reader's `maxVertices`).
        public var maxVertices = 10_000_000
        /// Most parts (points of a MultiPoint, lines, rings).
        public var maxParts = 1_000_000
        /// Coordinates beyond this are garbage (`ShapefileReader.maxAbsoluteCoordinate`).
        public var maxAbsoluteCoordinate = 1e12
        /// The default caps.
        public init() {}
    }

    /// What a WKB geometry holds: its vertices as interleaved x, y; its parts (point index ranges: one point per
    /// part for points, a line, a ring); where each polygon's rings start (part indexes); and which families
    /// occur (a GeometryCollection may mix them).
    public struct Parts: Sendable, Hashable {
        public var xy: [Double] = []
        public var parts: [Range<Int>] = []
        public var polygonStarts: [Int] = []
        public var hasPoints = false
        public var hasLines = false
        public var hasPolygons = false
        /// The outermost type (1 Point … 7 GeometryCollection).
        public var topType: UInt32 = 0
    }

    let bytes: UnsafeRawBufferPointer
    let limits: Limits
    /// Where the WKB starts in `bytes` (error offsets are relative to it).
    let base: Int
    var pos: Int
    var out = Parts()

    /// Parses the WKB at `offset` of `bytes`.
    public static func read(
        _ bytes: UnsafeRawBufferPointer, from offset: Int = 0, limits: Limits = Limits()
    ) throws(GeometryBlobIssue) -> Parts {
        var reader = WKBReader(bytes: bytes, limits: limits, base: offset, pos: offset)
        try reader.geometry(depth: 0, expected: nil)
        return reader.out
    }

    private func fail(_ message: String) -> GeometryBlobIssue {
        GeometryBlobIssue(code: .badWkb, "WKB byte \(pos - base): \(message)")
    }

    private var remaining: Int { bytes.count - pos }

    private mutating func uint32(_ little: Bool) throws(GeometryBlobIssue) -> UInt32 {
        guard remaining >= 4 else { throw fail("ends inside a 4-byte integer") }
        var v: UInt32 = 0
        for k in 0..<4 { v |= UInt32(bytes[pos + k]) << (8 * k) }
        pos += 4
        return little ? v : v.byteSwapped
    }

    private func double(at p: Int, _ little: Bool) -> Double {
        var v: UInt64 = 0
        for k in 0..<8 { v |= UInt64(bytes[p + k]) << (8 * k) }
        return Double(bitPattern: little ? v : v.byteSwapped)
    }

    /// One geometry: byte order, type, body. `expected` is the member type a Multi* requires.
    private mutating func geometry(depth: Int, expected: UInt32?) throws(GeometryBlobIssue) {
        guard depth <= limits.maxDepth else {
            throw GeometryBlobIssue(
                code: .tooComplex, "collections nest deeper than \(limits.maxDepth) at WKB byte \(pos - base)")
        }
        guard remaining >= 5 else { throw fail("ends before a geometry's byte order and type") }
        let order = bytes[pos]
        guard order <= 1 else { throw fail("byte order \(order), neither 0 (big endian) nor 1 (little endian)") }
        let little = order == 1
        pos += 1
        var code = try uint32(little)
        var dims = 2
        if code & 0x8000_0000 != 0 { dims += 1 }
        if code & 0x4000_0000 != 0 { dims += 1 }
        if code & 0x2000_0000 != 0 { _ = try uint32(little) }  // EWKB SRID: the GeoPackage header's SRS id counts
        code &= 0x0FFF_FFFF
        let iso = code / 1000
        let type = code % 1000
        guard iso <= 3, dims == 2 || iso == 0 else { throw fail("type code \(code) is not a WKB geometry type") }
        dims += iso == 3 ? 2 : (iso > 0 ? 1 : 0)
        if let expected, type != expected {
            throw fail("a member of type \(type) where the collection holds only type \(expected)")
        }
        if depth == 0 { out.topType = type }
        switch type {
        case 1:
            try point(dims, little)
        case 2:
            try line(dims, little, ring: false)
        case 3:
            try polygon(dims, little)
        case 4, 5, 6, 7:
            let n = Int(try uint32(little))
            // Each member needs at least its byte order, type and a count or coordinate.
            guard n <= remaining / 9 else { throw fail("\(n) members cannot fit in the \(remaining) bytes left") }
            for _ in 0..<n {
                try geometry(depth: depth + 1, expected: type == 7 ? nil : type - 3)
            }
        case 8...17:
            throw GeometryBlobIssue(
                code: .unsupportedGeometryType,
                "WKB type \(type) (\(Self.curveNames[Int(type) - 8])): curves and surfaces are not read; convert them "
                    + "to lines or polygons first (ogr2ogr -nlt CONVERT_TO_LINEAR)")
        default:
            throw fail("type code \(code) is not a WKB geometry type")
        }
    }

    static let curveNames = [
        "CircularString", "CompoundCurve", "CurvePolygon", "MultiCurve", "MultiSurface", "Curve", "Surface",
        "PolyhedralSurface", "TIN", "Triangle",
    ]

    /// Appends `n` points of `dims` doubles each as interleaved x, y (the bytes were checked by the caller).
    private mutating func coordinates(_ n: Int, _ dims: Int, _ little: Bool) throws(GeometryBlobIssue) {
        guard out.xy.count / 2 + n <= limits.maxVertices else {
            throw GeometryBlobIssue(
                code: .tooComplex, "more than \(limits.maxVertices) vertices (the limit of one geometry)")
        }
        out.xy.reserveCapacity(out.xy.count + 2 * n)
        for _ in 0..<n {
            let x = double(at: pos, little)
            let y = double(at: pos + 8, little)
            try check(x, y, vertex: out.xy.count / 2)
            out.xy.append(x)
            out.xy.append(y)
            pos += 8 * dims
        }
    }

    private func check(_ x: Double, _ y: Double, vertex: Int) throws(GeometryBlobIssue) {
        guard x.isFinite, y.isFinite else {
            throw GeometryBlobIssue(code: .nonFiniteCoordinate, "vertex \(vertex) is (\(x), \(y))")
        }
        let limit = limits.maxAbsoluteCoordinate
        guard abs(x) <= limit, abs(y) <= limit else {
            throw GeometryBlobIssue(
                code: .outOfDomain, "vertex \(vertex) is (\(x), \(y)), beyond ±\(limit) in any coordinate system")
        }
    }

    private mutating func addPart(_ start: Int) throws(GeometryBlobIssue) {
        guard out.parts.count < limits.maxParts else {
            throw GeometryBlobIssue(
                code: .tooComplex, "more than \(limits.maxParts) parts (the limit of one geometry)")
        }
        out.parts.append(start..<out.xy.count / 2)
    }

    private mutating func point(_ dims: Int, _ little: Bool) throws(GeometryBlobIssue) {
        guard remaining >= 8 * dims else { throw fail("ends inside a point") }
        let x = double(at: pos, little)
        let y = double(at: pos + 8, little)
        if x.isNaN && y.isNaN {
            pos += 8 * dims  // POINT EMPTY
            return
        }
        let start = out.xy.count / 2
        try coordinates(1, dims, little)
        try addPart(start)
        out.hasPoints = true
    }

    private mutating func line(_ dims: Int, _ little: Bool, ring: Bool) throws(GeometryBlobIssue) {
        let n = Int(try uint32(little))
        guard n <= remaining / (8 * dims) else {
            throw fail("\(n) points cannot fit in the \(remaining) bytes left")
        }
        guard n > 0 else { return }
        let start = out.xy.count / 2
        try coordinates(n, dims, little)
        try addPart(start)
        if !ring { out.hasLines = true }
    }

    private mutating func polygon(_ dims: Int, _ little: Bool) throws(GeometryBlobIssue) {
        let n = Int(try uint32(little))
        guard n <= remaining / 4 else { throw fail("\(n) rings cannot fit in the \(remaining) bytes left") }
        guard n > 0 else { return }
        out.polygonStarts.append(out.parts.count)
        for _ in 0..<n { try line(dims, little, ring: true) }
        if out.polygonStarts.last == out.parts.count {
            out.polygonStarts.removeLast()  // every ring was empty
        } else {
            out.hasPolygons = true
        }
    }
}
