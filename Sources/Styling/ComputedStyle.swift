/// The style the cascade gives one feature: the winning value of each property (nil when no rule sets it, or
/// when the winning rule says `none`).
public struct ComputedStyle: Sendable, Hashable {
    /// The class name written to tiles as the feature property `class`.
    public var className: String?
    /// The lowest zoom at which the feature is written.
    public var minZoom: Int?
    /// The highest zoom at which the feature is written.
    public var maxZoom: Int?
    /// The output layer name.
    public var layer: String?
    /// The attributes to keep (an empty list keeps none); nil keeps all.
    public var keep: [String]?
    /// True when the feature is dropped.
    public var exclude: Bool
    /// Most points of the output layer per tile (`max-points`).
    public var maxPoints: Int?
    /// True when thinned polygons and lines of the output layer merge into kept neighbours (`coalesce`).
    public var coalesce = false
    /// How the tile limits thin the feature (`thinning`; nil: `auto`).
    public var thinning: ThinningPolicy?
    /// The attributes coalescing compares before merging (`identity`; nil or empty: none).
    public var identity: [String]?
    /// Fill colour.
    public var fill: StyleColor?
    /// Fill opacity, 0…1.
    public var fillOpacity: Double?
    /// Fill pattern.
    public var fillPattern: FillPattern?
    /// Pattern line colour.
    public var patternColor: StyleColor?
    /// Pattern background colour.
    public var patternBackground: StyleColor?
    /// Pattern spacing in pixels.
    public var patternSpacing: Double?
    /// Pattern line width in pixels.
    public var patternWidth: Double?
    /// Line colour.
    public var stroke: StyleColor?
    /// Line width.
    public var strokeWidth: Double?
    /// Dash lengths.
    public var strokeDasharray: [Double]?
    /// Overall opacity, 0…1.
    public var opacity: Double?
    /// The attribute whose value labels the feature.
    public var label: String?
    /// Label colour.
    public var textColor: StyleColor?
    /// Label size.
    public var textSize: Double?
    /// Icon.
    public var icon: StyleIcon?

    /// An empty style: no class, nothing set, not excluded.
    public init() {
        exclude = false
    }

    /// True when the feature is written at `zoom` (inside `minZoom…maxZoom` where they are set, and not excluded).
    public func isVisible(atZoom zoom: Int) -> Bool {
        !exclude && zoom >= (minZoom ?? Int.min) && zoom <= (maxZoom ?? Int.max)
    }

    /// Sets a property from a declaration value (`none` clears it).
    mutating func apply(_ property: StyleProperty, _ value: StyleValue) {
        switch property {
        case .className: className = value.textValue
        case .minZoom: minZoom = value.integerValue
        case .maxZoom: maxZoom = value.integerValue
        case .layer: layer = value.textValue
        case .keep: if case .names(let n) = value { keep = n } else { keep = nil }
        case .exclude: if case .bool(let b) = value { exclude = b } else { exclude = false }
        case .maxPoints: maxPoints = value.integerValue
        case .coalesce: if case .bool(let b) = value { coalesce = b } else { coalesce = false }
        case .thinning: thinning = value.textValue.flatMap(ThinningPolicy.init)
        case .identity: if case .names(let n) = value { identity = n } else { identity = nil }
        case .fill: fill = value.colorValue
        case .fillOpacity: fillOpacity = value.numberValue
        case .fillPattern: if case .pattern(let p) = value { fillPattern = p } else { fillPattern = nil }
        case .patternColor: patternColor = value.colorValue
        case .patternBackground: patternBackground = value.colorValue
        case .patternSpacing: patternSpacing = value.numberValue
        case .patternWidth: patternWidth = value.numberValue
        case .stroke: stroke = value.colorValue
        case .strokeWidth: strokeWidth = value.numberValue
        case .strokeDasharray: if case .numbers(let n) = value { strokeDasharray = n } else { strokeDasharray = nil }
        case .opacity: opacity = value.numberValue
        case .label: label = value.textValue
        case .textColor: textColor = value.colorValue
        case .textSize: textSize = value.numberValue
        case .icon: icon = value.iconValue
        }
    }
}

extension StyleValue {
    /// The name of a `.text` value.
    public var textValue: String? { if case .text(let s) = self { s } else { nil } }
    /// The whole number of an `.integer` value.
    public var integerValue: Int? { if case .integer(let i) = self { i } else { nil } }
    /// The number of a `.number` (or `.integer`) value.
    public var numberValue: Double? {
        switch self {
        case .number(let d): d
        case .integer(let i): Double(i)
        default: nil
        }
    }
    /// The colour of a `.color` value.
    public var colorValue: StyleColor? { if case .color(let c) = self { c } else { nil } }
    /// The icon of an `icon` declaration's value (a name or `url(…)`).
    public var iconValue: StyleIcon? {
        switch self {
        case .text(let name): .symbol(name)
        case .url(let path): .file(path)
        default: nil
        }
    }
}
