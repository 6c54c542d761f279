public import KartpackCore
public import Styling

/// One layer of the client style, before it becomes MapLibre JSON or SVG: what to draw, for which features, and
/// with which resolved values (defaults filled in). `MapLibreStyle` and `SVGPreview` draw from the same plan so
/// the preview shows what the client shows.
public struct PlannedLayer: Sendable, Hashable {
    /// The unique, stable id: `LAYER-CLASS-KIND` (`hansyn-natura2000-pattern`), with `-polygon`/`-line`/`-point`
    /// added when the package does not say the layer's geometry, and `-2`, `-3`, … on a collision.
    public var id: String
    /// What is drawn.
    public var kind: DrawKind
    /// The MVT layer (`source-layer`).
    public var sourceLayer: String
    /// The class the layer's filter selects.
    public var className: String
    /// The geometry the features must have; nil for any (labels of a layer of unknown geometry).
    public var geometry: GeometryFamily?
    /// True when the package did not say the layer's geometry, so the filter tests the geometry type too.
    public var filtersGeometry: Bool
    /// The MapLibre `minzoom` (inclusive): the first zoom of the range where the layer draws (the class's
    /// `min-zoom`, zoom filters); nil from zoom 0.
    public var minZoom: Int?
    /// The MapLibre `maxzoom` (exclusive): the last zoom of the range + 1 (the class's `max-zoom` + 1); nil up to
    /// zoom 24.
    public var maxZoom: Int?
    /// The main colour: fill, pattern, line, circle, marker or text colour.
    public var color: StyleColor
    /// The opacity (0…1), the class's `opacity` times `fill-opacity` for fills.
    public var opacity: Double
    /// Line width or circle outline width, in pixels.
    public var width: Double
    /// Line dash lengths in line widths.
    public var dashes: [Double]?
    /// The outline colour of fills and circles.
    public var outlineColor: StyleColor?
    /// The opacity of a circle's outline (the class's `opacity`).
    public var outlineOpacity: Double
    /// The sprite image name (`pattern` and `icon`).
    public var imageName: String?
    /// The pattern (`pattern`).
    public var pattern: FillPattern?
    /// The circle radius in pixels (`circle`).
    public var radius: Double
    /// The attribute that labels features (`label`), as named in the package's fields where found.
    public var labelField: String?
    /// Text size in pixels (`label`).
    public var textSize: Double
    /// The presentation the layer was planned from (at the first zoom of its range).
    public var presentation: ClassPresentation

    /// True when both layers draw the same thing the same way (ignoring id, zoom range and presentation).
    func drawsLike(_ o: PlannedLayer) -> Bool {
        kind == o.kind && sourceLayer == o.sourceLayer && className == o.className && geometry == o.geometry
            && filtersGeometry == o.filtersGeometry && color == o.color && opacity == o.opacity && width == o.width
            && dashes == o.dashes && outlineColor == o.outlineColor && outlineOpacity == o.outlineOpacity
            && imageName == o.imageName && pattern == o.pattern && radius == o.radius
            && (kind != .label || (labelField == o.labelField && textSize == o.textSize))
    }

    /// True when the layer is drawn at display zoom `zoom` (MapLibre's rule: `minzoom ≤ zoom < maxzoom`).
    public func isVisible(atZoom zoom: Int) -> Bool {
        zoom >= (minZoom ?? 0) && zoom < (maxZoom ?? Int.max)
    }
}
