import KartpackCore

/// An affine map from a planar CRS to floating tile coordinates (y down):
/// `tx = (x − originX) · scaleX`, `ty = (y − originY) · scaleY`.
public struct TileTransform: Sendable, Hashable {
    /// The source x that maps to tile x = 0.
    public var originX: Double
    /// The source y that maps to tile y = 0.
    public var originY: Double
    /// Tile units per source unit along x.
    public var scaleX: Double
    /// Tile units per source unit along y (negative for a y-up source such as Web Mercator metres).
    public var scaleY: Double

    /// Creates a transform from its parameters.
    public init(originX: Double, originY: Double, scaleX: Double, scaleY: Double) {
        self.originX = originX
        self.originY = originY
        self.scaleX = scaleX
        self.scaleY = scaleY
    }

    /// The identity: the input is already in tile coordinates.
    public static let identity = TileTransform(originX: 0, originY: 0, scaleX: 1, scaleY: 1)

    /// Web Mercator metres to the tile coordinates of `tile` at `extent` (formats.md §0):
    /// `tx = (X − minX) / S · extent`, `ty = (maxY − Y) / S · extent`.
    public init(tile: TileCoordinate, extent: Int = 4096) {
        let b = SphericalMercator.bounds(of: tile)
        let scale = Double(extent) / SphericalMercator.tileSize(zoom: tile.z)
        self.init(originX: b.minX, originY: b.maxY, scaleX: scale, scaleY: -scale)
    }

    /// Maps a source point to floating tile coordinates.
    @inlinable
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        ((x - originX) * scaleX, (y - originY) * scaleY)
    }

    /// Maps tile coordinates back to the source CRS.
    @inlinable
    public func invert(x: Double, y: Double) -> (x: Double, y: Double) {
        (x / scaleX + originX, y / scaleY + originY)
    }
}
