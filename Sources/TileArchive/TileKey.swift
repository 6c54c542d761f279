/// A tile address in the XYZ scheme: `y = 0` is the north edge (MBTiles' TMS rows are converted at the edge).
/// Ordered by zoom, then column, then row.
public struct TileKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Zoom level, 0...31.
    public var z: Int
    /// Column, 0 ..< 2^z.
    public var x: Int
    /// Row from the north, 0 ..< 2^z.
    public var y: Int

    /// The largest zoom level any archive can address (PMTiles TileIDs fit in 64 bits up to z31).
    public static let maxZoom = 31

    /// Creates a key; see `isValid` for the allowed ranges.
    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// True when `z` is in 0...31 and `x` and `y` are in 0 ..< 2^z.
    public var isValid: Bool {
        guard z >= 0 && z <= TileKey.maxZoom else { return false }
        let n = 1 << z
        return x >= 0 && x < n && y >= 0 && y < n
    }

    /// The MBTiles (TMS) row: `2^z - 1 - y`.
    public var tmsRow: Int { (1 << z) - 1 - y }

    /// `z/x/y`.
    public var description: String { "\(z)/\(x)/\(y)" }

    /// Zoom, then column, then row.
    public static func < (a: TileKey, b: TileKey) -> Bool {
        (a.z, a.x, a.y) < (b.z, b.x, b.y)
    }
}
