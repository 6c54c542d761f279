public import KartpackCore
public import Styling

/// Which features of a package layer a planned layer draws by their tile `class`.
public enum ClassSelection: Sendable, Hashable, CustomStringConvertible {
    /// Every feature (the package has no classes for the layer).
    case any
    /// Features with this `class`.
    case named(String)
    /// Features without a `class`.
    case unclassified

    /// The filter part.
    public var expression: StyleExpression {
        switch self {
        case .any: .bool(true)
        case .named(let c): .hasClass(c)
        case .unclassified: .hasClass(nil)
        }
    }

    /// The knowledge the class gives the client cascade.
    public var knowledge: ClassKnowledge {
        switch self {
        case .any: .unknown
        case .named(let c): .known(c)
        case .unclassified: .known(nil)
        }
    }

    /// The class name, `unclassified` or `all`, for ids and legends.
    public var description: String {
        switch self {
        case .any: "all"
        case .named(let c): c
        case .unclassified: "unclassified"
        }
    }
}

/// One layer of the client style, before it becomes MapLibre JSON or SVG: what to draw, for which features, and
/// the paint and layout values as `StyleExpression`s (constants where the cascade gives every feature the same
/// value). `MapLibreStyle` writes them as JSON; `SVGPreview` evaluates them per feature, so the preview shows
/// what the client shows.
public struct PlannedLayer: Sendable, Hashable {
    /// The unique, stable id: `LAYER-CLASS-KIND`, plus `-dashN` when dash arrays differ, `-polygon`/`-line`/
    /// `-point` when the package does not say the geometry, `-zN` for a second zoom range, `-2`… on a collision.
    public var id: String
    /// What is drawn.
    public var kind: DrawKind
    /// The MVT layer (`source-layer`): the package layer, or its label layer `LAYER_labels`.
    public var sourceLayer: String
    /// The package layer the features belong to.
    public var packageLayer: String
    /// Which classes.
    public var classSelection: ClassSelection
    /// The geometry the features must have; nil for any.
    public var geometry: GeometryFamily?
    /// True when the filter tests the geometry type (the package does not say the layer's geometry).
    public var filtersGeometry: Bool
    /// The MapLibre `minzoom` (inclusive); nil from zoom 0.
    public var minZoom: Int?
    /// The MapLibre `maxzoom` (exclusive); nil up to zoom 24.
    public var maxZoom: Int?
    /// The filter beyond class and geometry (a boolean expression).
    public var condition: StyleExpression
    /// Paint properties by MapLibre name.
    public var paint: [String: StyleExpression]
    /// Data-driven layout properties by MapLibre name (fixed ones are added by `MapLibreStyle`).
    public var layout: [String: StyleExpression]
    /// The `line-dasharray` (constant per layer), in line widths.
    public var dashes: [Double]?

    /// True when both layers draw the same features the same way (ignoring id and zoom range).
    func drawsLike(_ o: PlannedLayer) -> Bool {
        var a = self
        var b = o
        (a.id, a.minZoom, a.maxZoom) = ("", nil, nil)
        (b.id, b.minZoom, b.maxZoom) = ("", nil, nil)
        return a == b
    }

    /// True when the layer is drawn at display zoom `zoom` (MapLibre's rule: `minzoom ≤ zoom < maxzoom`).
    public func isVisible(atZoom zoom: Int) -> Bool {
        zoom >= (minZoom ?? 0) && zoom < (maxZoom ?? Int.max)
    }

    /// The whole filter: class, geometry and condition.
    public var filter: StyleExpression {
        .and([classSelection.expression, condition])
    }

    /// True when the layer draws a feature of geometry `family` with these tile properties.
    public func draws(_ properties: Properties, family: GeometryFamily) -> Bool {
        if let g = geometry, g != family { return false }
        return filter.evaluate(properties).boolValue
    }

    /// A paint or layout value for a feature.
    public func value(_ key: String, _ properties: Properties) -> StyleLiteral {
        (paint[key] ?? layout[key])?.evaluate(properties) ?? .null
    }
}
