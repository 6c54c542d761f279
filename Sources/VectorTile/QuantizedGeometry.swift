import GeometryAlgorithms

/// The result of `Quantizer.quantizePoints(_:)`.
public struct QuantizedPoints: Sendable, Hashable {
    /// The snapped points.
    public var points: [TilePoint] = []
    /// Points dropped for a NaN or infinite coordinate.
    public var nonFiniteCoordinates = 0
    /// Coordinates clamped to ±`Quantizer.coordinateLimit`.
    public var clampedCoordinates = 0

    /// The MVT command stream (empty when no point is left).
    public var commands: [UInt32] { MVTGeometryEncoder.points(points) }
}

/// The result of `Quantizer.quantizeLines(_:)`.
public struct QuantizedLines: Sendable, Hashable {
    /// The snapped parts, each with at least 2 points and no consecutive duplicates.
    public var parts: [[TilePoint]] = []
    /// Parts dropped because they collapsed to fewer than 2 distinct points or held a non-finite coordinate.
    public var droppedParts = 0
    /// Parts that held a NaN or infinite coordinate (also counted in `droppedParts`).
    public var nonFiniteCoordinates = 0
    /// Coordinates clamped to ±`Quantizer.coordinateLimit`.
    public var clampedCoordinates = 0

    /// The MVT command stream (empty when no part is left).
    public var commands: [UInt32] { MVTGeometryEncoder.lines(parts) }
}

/// The result of `Quantizer.quantizePolygons(_:)`.
public struct QuantizedPolygons: Sendable, Hashable {
    /// Polygons as `[exterior, holes…]`, open rings, exteriors positive and holes negative signed area.
    public var polygons: [[[TilePoint]]] = []
    /// Holes dropped because they collapsed (fewer than 3 distinct points, zero area, flipped sign, non-finite).
    public var droppedHoles = 0
    /// Polygons dropped because their exterior collapsed (their holes went with them).
    public var droppedPolygons = 0
    /// Holes dropped together with a collapsed exterior (not counted in `droppedHoles`).
    public var holesDroppedWithExterior = 0
    /// Rings reversed to get the MVT orientation.
    public var reorientedRings = 0
    /// Rings dropped for a NaN or infinite coordinate (also counted as dropped holes or polygons).
    public var nonFiniteCoordinates = 0
    /// Coordinates clamped to ±`Quantizer.coordinateLimit`.
    public var clampedCoordinates = 0
    /// True when the snapped rings self-intersect, touch each other or a hole left its exterior: repair on the
    /// integer grid (e.g. GEOS with grid size 1) and quantize again.
    public var needsRepair = false

    /// True when no polygon is left.
    public var isEmpty: Bool { polygons.isEmpty }

    /// The MVT command stream (empty when no polygon is left).
    public var commands: [UInt32] { MVTGeometryEncoder.polygons(polygons) }
}
