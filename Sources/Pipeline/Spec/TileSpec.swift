/// The `tiles` section: the zoom range and tiling parameters shared by every layer.
public struct TileSpec: Sendable, Hashable {
    /// Lowest zoom written (0–24, default 0).
    public var minZoom: Int = 0
    /// Highest zoom written (0–24, default 14).
    public var maxZoom: Int = 14
    /// Simplification tolerance in tile units (default 1).
    public var simplify: Double = 1
    /// Clip buffer around each tile in tile units (default 80).
    public var buffer: Double = 80
    /// Largest compressed tile in bytes (default 500000).
    public var maxTileBytes: Int = 500_000
    /// Most features in one tile (default 200000).
    public var maxTileFeatures: Int = 200_000
    /// MVT tile extent: a power of two from 256 to 16384 (default 4096).
    public var extent: Int = 4096

    /// Creates the defaults.
    public init() {}

    /// The zoom range as a closed range.
    public var zoomRange: ClosedRange<Int> { minZoom...max(minZoom, maxZoom) }

    /// Keys accepted in the section.
    static let keys = ["minZoom", "maxZoom", "simplify", "buffer", "maxTileBytes", "maxTileFeatures", "extent"]
}
