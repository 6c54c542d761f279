/// The kind of a `Geometry`, following the Simple Features types that Shapefiles and MVT share.
public enum GeometryKind: String, Sendable, Hashable, CaseIterable, Codable {
    case point
    case multiPoint
    case lineString
    case multiLineString
    case polygon
    case multiPolygon

    /// `point`/`multiPoint` → `.point`, and so on: the MVT geometry family.
    public var family: GeometryFamily {
        switch self {
        case .point, .multiPoint: .point
        case .lineString, .multiLineString: .line
        case .polygon, .multiPolygon: .polygon
        }
    }
}

/// Point, line or polygon: what a feature looks like to a tile client.
public enum GeometryFamily: String, Sendable, Hashable, Codable {
    case point, line, polygon
}

/// A geometry in flat storage: interleaved coordinates plus part offsets.
///
/// - `xy` holds `x0, y0, x1, y1, …` (the layout GEOS coordinate buffers and `proj_trans_generic` use).
/// - `partStarts[i]` is the index of the first *point* of part `i` (a line or a ring); part `i` ends where
///   part `i + 1` starts, or at the last point. Points and multipoints have one part holding every point.
/// - `polygonStarts[j]` is the index of the first *part* (the exterior ring) of polygon `j`; its holes follow
///   until the next polygon starts. Empty for non-polygonal kinds.
/// - Rings are stored closed (first point repeated last), as in Shapefiles and GEOS.
/// - Z and M values of the source are not kept: tiles and packages are two-dimensional.
public struct Geometry: Sendable, Hashable {
    public var kind: GeometryKind
    public var xy: [Double]
    public var partStarts: [Int32]
    public var polygonStarts: [Int32]

    /// Creates a geometry from flat storage; see the type's documentation for the layout.
    public init(
        kind: GeometryKind, xy: [Double], partStarts: [Int32], polygonStarts: [Int32] = []
    ) {
        self.kind = kind
        self.xy = xy
        self.partStarts = partStarts
        self.polygonStarts = polygonStarts
    }

    /// Number of points over all parts.
    public var pointCount: Int { xy.count / 2 }

    /// Number of parts (lines or rings; 1 for point kinds).
    public var partCount: Int { partStarts.count }

    /// Number of polygons (0 for non-polygonal kinds).
    public var polygonCount: Int { polygonStarts.count }

    /// The point index range of part `i`.
    public func pointRange(ofPart i: Int) -> Range<Int> {
        let start = Int(partStarts[i])
        let end = i + 1 < partStarts.count ? Int(partStarts[i + 1]) : pointCount
        return start..<end
    }

    /// The part index range of polygon `j` (its exterior ring first, then its holes).
    public func partRange(ofPolygon j: Int) -> Range<Int> {
        let start = Int(polygonStarts[j])
        let end = j + 1 < polygonStarts.count ? Int(polygonStarts[j + 1]) : partCount
        return start..<end
    }

    /// Point `i` as an `(x, y)` pair.
    public func point(_ i: Int) -> (x: Double, y: Double) { (xy[2 * i], xy[2 * i + 1]) }

    /// The bounding box of every coordinate, or nil when there are none.
    public var bounds: Bounds? {
        var b = Bounds.empty
        var i = 0
        while i + 1 < xy.count {
            b.include(x: xy[i], y: xy[i + 1])
            i += 2
        }
        return b.isEmpty ? nil : b
    }

    /// True when every coordinate is finite (no NaN or infinity).
    public var isFinite: Bool { xy.allSatisfy { $0.isFinite } }

    /// A single point.
    public static func point(x: Double, y: Double) -> Geometry {
        Geometry(kind: .point, xy: [x, y], partStarts: [0])
    }

    /// Builds a (multi)line from parts given as interleaved coordinate arrays.
    public static func lines(_ parts: [[Double]]) -> Geometry {
        var xy: [Double] = []
        var starts: [Int32] = []
        for p in parts {
            starts.append(Int32(xy.count / 2))
            xy += p
        }
        return Geometry(kind: parts.count == 1 ? .lineString : .multiLineString, xy: xy, partStarts: starts)
    }

    /// Builds a (multi)polygon from polygons, each a list of closed rings (exterior first) given as interleaved
    /// coordinate arrays.
    public static func polygons(_ polygons: [[[Double]]]) -> Geometry {
        var xy: [Double] = []
        var starts: [Int32] = []
        var polys: [Int32] = []
        for rings in polygons {
            polys.append(Int32(starts.count))
            for r in rings {
                starts.append(Int32(xy.count / 2))
                xy += r
            }
        }
        return Geometry(
            kind: polygons.count == 1 ? .polygon : .multiPolygon, xy: xy, partStarts: starts, polygonStarts: polys)
    }
}

/// Signed area of a ring by the shoelace formula (positive = counter-clockwise with y up).
/// The ring may be closed or open; `xy` is interleaved.
public func signedRingArea(_ xy: ArraySlice<Double>) -> Double {
    let n = xy.count / 2
    guard n >= 3 else { return 0 }
    let base = xy.startIndex
    var sum = 0.0
    let x0 = xy[base]
    let y0 = xy[base + 1]
    for i in 0..<n {
        let j = (i + 1) % n
        // Shift by the first point to keep precision with large projected coordinates.
        let xi = xy[base + 2 * i] - x0
        let yi = xy[base + 2 * i + 1] - y0
        let xj = xy[base + 2 * j] - x0
        let yj = xy[base + 2 * j + 1] - y0
        sum += xi * yj - xj * yi
    }
    return sum / 2
}
