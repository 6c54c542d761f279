public import KartpackCore
import Styling
public import KartpackJSON
import VectorTile

/// What area a preview shows.
public enum PreviewArea: Sendable, Hashable {
    /// One tile, drawn at `SVGPreviewOptions.tilePixels` pixels square; zoom = the tile's zoom.
    case tile(TileCoordinate)
    /// A box in WGS 84 degrees (west, south, east, north) drawn at display zoom `zoom` as a MapLibre client
    /// draws it: 512 pixels per tile of that zoom (so at most `SVGPreviewOptions.maxPixels` on a side).
    case bbox(Bounds, zoom: Int)
}

/// Options for `SVGPreview`.
public struct SVGPreviewOptions: Sendable, Hashable {
    /// Pixels per tile side for `.tile` previews.
    public var tilePixels: Double = 512
    /// The largest side of a `.bbox` preview in pixels.
    public var maxPixels: Double = 4096
    /// Draw a legend (class name and swatch) below the map.
    public var legend = true
    /// The most tiles a preview may read.
    public var maxTiles = 256
    /// Also report, per drawn feature, the look the Swift cascade gives it (`SVGPreviewResult.features`).
    public var reportFeatures = false
    /// Planning options, as for the style.
    public var plan = StylePlanOptions()

    /// The defaults.
    public init() {}
}

/// A rendered preview and what went into it.
public struct SVGPreviewResult: Sendable {
    /// The SVG document.
    public var svg: String
    /// The map's size in pixels (the legend adds height below).
    public var width: Int
    /// The map's height in pixels.
    public var height: Int
    /// The zoom of the tiles read (lower than the display zoom when overzooming past the package's max zoom).
    public var sourceZoom: Int
    /// Tiles read from the package.
    public var tilesRead: Int
    /// Tiles of the area the package does not have.
    public var tilesMissing: Int
    /// `<path>` elements drawn on the map (fills, patterns, outlines, lines).
    public var paths: Int
    /// Features drawn by at least one layer.
    public var featuresDrawn: Int
    /// Features with no class (no `class` property, and the sheet gives none): the client style does not draw
    /// them, nor does the preview.
    public var unclassified: Int
    /// The plan's warnings.
    public var warnings: [String]
    /// With `reportFeatures`: per drawn feature `{layer, id, class, kinds: FeatureLook.expected(...)}`, the look
    /// from the sheet's cascade at the display zoom on the feature's tile attributes (descendant selectors answered
    /// by a point on the feature inside the ancestor layer's features of the same view).
    public var features: [JSONValue] = []
}
