/// The address of one tile in the XYZ scheme: `y = 0` is the north edge (as in PMTiles and tile URLs; MBTiles'
/// TMS rows are converted at the archive's edge with `tmsY`). The one tile address of the project: tiling,
/// archives, inspection and previews all use it.
///
/// Ordering (`Comparable`) is by zoom, then `x`, then `y`; archive writers impose their own order
/// (Hilbert TileID for PMTiles).
public struct TileCoordinate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Zoom level, `0...maxZoom`.
    public var z: Int
    /// Column, `0..<2^z`, growing east.
    public var x: Int
    /// Row, `0..<2^z`, growing south.
    public var y: Int

    /// The highest zoom level any archive can address (PMTiles TileIDs fit in 64 bits up to z31).
    public static let maxZoom = 31

    /// Creates a coordinate without checking it; use `isValid` or `init?(validZ:x:y:)` for untrusted input.
    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// Creates a coordinate, or nil when the zoom or the column/row is out of range.
    public init?(validZ z: Int, x: Int, y: Int) {
        self.init(z: z, x: x, y: y)
        guard isValid else { return nil }
    }

    /// True when `0 ≤ z ≤ maxZoom` and `0 ≤ x, y < 2^z`.
    public var isValid: Bool {
        guard z >= 0 && z <= Self.maxZoom else { return false }
        let n = 1 << z
        return x >= 0 && x < n && y >= 0 && y < n
    }

    /// The number of tiles along one axis at this zoom (`2^z`).
    public var tilesPerAxis: Int { 1 << max(0, min(z, Self.maxZoom)) }

    /// The row in the TMS scheme (`y = 0` at the south edge), as MBTiles stores it.
    public var tmsY: Int { tilesPerAxis - 1 - y }

    /// The tile one zoom level up that contains this one, or nil at zoom 0.
    public var parent: TileCoordinate? {
        guard z > 0 else { return nil }
        return TileCoordinate(z: z - 1, x: x >> 1, y: y >> 1)
    }

    /// The four tiles one zoom level down, in row-major order (NW, NE, SW, SE); empty at `maxZoom`.
    public var children: [TileCoordinate] {
        guard z < Self.maxZoom else { return [] }
        let cx = x << 1
        let cy = y << 1
        return [
            TileCoordinate(z: z + 1, x: cx, y: cy), TileCoordinate(z: z + 1, x: cx + 1, y: cy),
            TileCoordinate(z: z + 1, x: cx, y: cy + 1), TileCoordinate(z: z + 1, x: cx + 1, y: cy + 1),
        ]
    }

    /// `z/x/y`.
    public var description: String { "\(z)/\(x)/\(y)" }

    /// Parses `z/x/y` (decimal, no sign, no spaces); nil when malformed or out of range.
    public static func parse(_ text: String) -> TileCoordinate? {
        let fields = text.split(separator: "/", omittingEmptySubsequences: false)
        guard fields.count == 3 else { return nil }
        var numbers: [Int] = []
        for f in fields {
            guard !f.isEmpty, f.count <= 10, f.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let v = Int(f) else {
                return nil
            }
            numbers.append(v)
        }
        return TileCoordinate(validZ: numbers[0], x: numbers[1], y: numbers[2])
    }

    /// Orders by zoom, then column, then row.
    public static func < (a: TileCoordinate, b: TileCoordinate) -> Bool {
        (a.z, a.x, a.y) < (b.z, b.x, b.y)
    }
}

/// A rectangle of tiles at one zoom level, both ends inclusive. Iterates row by row (y, then x).
public struct TileRange: Sendable, Hashable, Codable, Sequence {
    /// Zoom level.
    public var z: Int
    /// Westmost column.
    public var minX: Int
    /// Northmost row.
    public var minY: Int
    /// Eastmost column.
    public var maxX: Int
    /// Southmost row.
    public var maxY: Int

    /// Creates a range; `min` must not exceed `max` on either axis.
    public init(z: Int, minX: Int, minY: Int, maxX: Int, maxY: Int) {
        self.z = z
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// Number of tiles in the range.
    public var count: Int { Swift.max(0, maxX - minX + 1) * Swift.max(0, maxY - minY + 1) }

    /// True when the tile lies in the range.
    public func contains(_ t: TileCoordinate) -> Bool {
        t.z == z && t.x >= minX && t.x <= maxX && t.y >= minY && t.y <= maxY
    }

    /// Iterates the tiles row by row.
    public func makeIterator() -> Iterator { Iterator(range: self) }

    /// Row-major iterator over a `TileRange`.
    public struct Iterator: IteratorProtocol {
        let range: TileRange
        var x: Int
        var y: Int

        init(range: TileRange) {
            self.range = range
            x = range.minX
            y = range.minY
        }

        /// The next tile, nil after the last.
        public mutating func next() -> TileCoordinate? {
            guard range.minX <= range.maxX, y <= range.maxY else { return nil }
            let t = TileCoordinate(z: range.z, x: x, y: y)
            if x < range.maxX {
                x += 1
            } else {
                x = range.minX
                y += 1
            }
            return t
        }
    }
}
