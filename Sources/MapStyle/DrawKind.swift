/// What a planned style layer draws. The cases are listed in draw order, bottom to top: polygon fills, then
/// pattern fills, then polygon outlines, then lines, then points (circles and icons), then labels.
public enum DrawKind: String, Sendable, Hashable, CaseIterable, Comparable {
    /// A solid polygon fill (`fill` layer with `fill-color`).
    case fill
    /// A patterned polygon fill (`fill` layer with `fill-pattern`).
    case pattern
    /// A polygon outline (`line` layer).
    case outline
    /// A line feature (`line` layer).
    case line
    /// A point as a circle (`circle` layer).
    case circle
    /// A point as an icon (`symbol` layer with `icon-image`).
    case icon
    /// A text label (`symbol` layer with `text-field`).
    case label

    /// The bucket in draw order; circles and icons share one.
    public var drawRank: Int {
        switch self {
        case .fill: 0
        case .pattern: 1
        case .outline: 2
        case .line: 3
        case .circle, .icon: 4
        case .label: 5
        }
    }

    /// The MapLibre layer type.
    public var mapLibreType: String {
        switch self {
        case .fill, .pattern: "fill"
        case .outline, .line: "line"
        case .circle: "circle"
        case .icon, .label: "symbol"
        }
    }

    /// Orders by draw bucket, then declaration order.
    public static func < (a: DrawKind, b: DrawKind) -> Bool {
        (a.drawRank, allCases.firstIndex(of: a) ?? 0) < (b.drawRank, allCases.firstIndex(of: b) ?? 0)
    }
}
