import GeometryAlgorithms
import KartpackCore

/// A decoded geometry in integer tile coordinates.
///
/// - points: one part holding every point;
/// - lines: one part per line;
/// - polygons: one part per ring, open (no closing duplicate), with `ringIsExterior` classifying each ring by
///   its signed area (positive = exterior for version 2). Each exterior starts a new polygon.
public struct DecodedGeometry: Sendable, Hashable {
    /// The parts.
    public var parts: [[TilePoint]]
    /// For polygons, one flag per part; empty otherwise.
    public var ringIsExterior: [Bool]

    /// Creates a decoded geometry.
    public init(parts: [[TilePoint]], ringIsExterior: [Bool] = []) {
        self.parts = parts
        self.ringIsExterior = ringIsExterior
    }

    /// Number of vertices over all parts.
    public var pointCount: Int { parts.reduce(0) { $0 + $1.count } }

    /// For polygons: the part range of each polygon (an exterior ring and the holes after it).
    public var polygonRanges: [Range<Int>] {
        var out: [Range<Int>] = []
        var start: Int? = nil
        for (i, ext) in ringIsExterior.enumerated() where ext {
            if let s = start { out.append(s..<i) }
            start = i
        }
        if let s = start { out.append(s..<ringIsExterior.count) }
        return out
    }

    /// Converts to a Kartpack `Geometry` in the CRS of `transform` (e.g. `TileTransform(tile:extent:)` for
    /// Web Mercator metres), closing rings. Nil when there are no parts or the type is unknown.
    public func geometry(type: MVTGeometryType, transform: TileTransform) -> Geometry? {
        guard !parts.isEmpty else { return nil }
        var xy: [Double] = []
        var starts: [Int32] = []
        func add(_ p: TilePoint) {
            let m = transform.invert(x: Double(p.x), y: Double(p.y))
            xy.append(m.x)
            xy.append(m.y)
        }
        switch type {
        case .unknown:
            return nil
        case .point:
            starts = [0]
            for part in parts { for p in part { add(p) } }
            return Geometry(kind: xy.count > 2 ? .multiPoint : .point, xy: xy, partStarts: starts)
        case .lineString:
            for part in parts {
                starts.append(Int32(truncatingIfNeeded: xy.count / 2))
                for p in part { add(p) }
            }
            return Geometry(kind: parts.count > 1 ? .multiLineString : .lineString, xy: xy, partStarts: starts)
        case .polygon:
            let ranges = polygonRanges
            guard !ranges.isEmpty else { return nil }
            var polys: [Int32] = []
            for range in ranges {
                polys.append(Int32(truncatingIfNeeded: starts.count))
                for i in range {
                    starts.append(Int32(truncatingIfNeeded: xy.count / 2))
                    for p in parts[i] { add(p) }
                    if let f = parts[i].first { add(f) }
                }
            }
            return Geometry(
                kind: ranges.count > 1 ? .multiPolygon : .polygon, xy: xy, partStarts: starts, polygonStarts: polys)
        }
    }
}
