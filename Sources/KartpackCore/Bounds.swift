/// An axis-aligned bounding box.
public struct Bounds: Sendable, Hashable, Codable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    /// Creates a box from its corners.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The empty box: including any point makes it that point.
    public static let empty = Bounds(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    /// True when no point has been included.
    public var isEmpty: Bool { !(minX <= maxX && minY <= maxY) }

    /// True when the box has an area (a clip rectangle that can hold a fill): wider and taller than nothing.
    public var hasArea: Bool { minX < maxX && minY < maxY }

    /// Grows the box to include a point.
    public mutating func include(x: Double, y: Double) {
        if x < minX { minX = x }
        if x > maxX { maxX = x }
        if y < minY { minY = y }
        if y > maxY { maxY = y }
    }

    /// Grows the box to include another box.
    public mutating func include(_ other: Bounds) {
        guard !other.isEmpty else { return }
        include(x: other.minX, y: other.minY)
        include(x: other.maxX, y: other.maxY)
    }

    /// True when the boxes overlap or touch.
    public func intersects(_ other: Bounds) -> Bool {
        !(other.minX > maxX || other.maxX < minX || other.minY > maxY || other.maxY < minY)
    }

    /// True when the point lies inside or on the box.
    public func contains(x: Double, y: Double) -> Bool { x >= minX && x <= maxX && y >= minY && y <= maxY }

    /// The overlap of two boxes (empty when they do not overlap).
    public func intersection(_ o: Bounds) -> Bounds {
        Bounds(
            minX: Swift.max(minX, o.minX), minY: Swift.max(minY, o.minY), maxX: Swift.min(maxX, o.maxX),
            maxY: Swift.min(maxY, o.maxY))
    }

    /// The box grown by `d` on every side.
    public func expanded(by d: Double) -> Bounds {
        Bounds(minX: minX - d, minY: minY - d, maxX: maxX + d, maxY: maxY + d)
    }

    /// True when `other` lies inside this box (boundary included).
    public func contains(_ other: Bounds) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }
}
