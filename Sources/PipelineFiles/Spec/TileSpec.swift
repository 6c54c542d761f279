import ConvertEngine
/// The `tiles` section: the zoom range and tiling parameters shared by every layer.
package struct TileSpec: Sendable, Hashable {
    /// Lowest zoom written (0–24, default 0).
    package var minZoom: Int = 0
    /// Highest zoom written (0–24, default 14). With `maxZoomAuto`, the highest the guess may choose (16, or the
    /// min zoom when that is higher).
    package var maxZoom: Int = 14
    /// `"maxZoom": "auto"`: the converter chooses the max zoom from the data (`MaxZoomGuess`).
    package var maxZoomAuto = false
    /// Simplification tolerance in tile units (default 1).
    package var simplify: Double = 1
    /// Clip buffer around each tile in tile units (default 80).
    package var buffer: Double = 80
    /// Largest compressed tile in bytes (default 500000).
    package var maxTileBytes: Int = 500_000
    /// Most features in one tile (default 200000).
    package var maxTileFeatures: Int = 200_000
    /// MVT tile extent: a power of two from 256 to 16384 (default 4096).
    package var extent: Int = 4096
    /// Polygons of a layer simplified per tile together, so shared borders stay shared (default true).
    package var sharedBorders = true
    /// Small polygons and lines replaced by squares that keep their area per tile (default true).
    package var smallFeatures = true
    /// The side of those squares in tile units (default 2).
    package var smallFeatureSize: Double = 2
    /// How zooms over the limits are thinned (default `.spacing`).
    package var thinning: ThinningMode = .spacing
    /// The attribute kept longest when thinning (`FIELD`, `FIELD:asc`), nil for none.
    package var thinPriority: String?
    /// Polygons and lines thinned out are merged into a kept neighbour (default false).
    package var coalesce = false

    /// Creates the defaults.
    package init() {}

    /// The zoom range as a closed range.
    package var zoomRange: ClosedRange<Int> { minZoom...max(minZoom, maxZoom) }

    /// Keys accepted in the section.
    package static let keys = [
        "minZoom", "maxZoom", "simplify", "buffer", "maxTileBytes", "maxTileFeatures", "extent", "sharedBorders",
        "thinning", "thinPriority", "coalesce", "smallFeatures", "smallFeatureSize",
    ]
}
