/// A solid polygon fill (a `fill` layer without `fill-pattern`).
public struct FillLook: Sendable, Hashable {
    /// `fill-color` (default black).
    public var color: LookColor
    /// `fill-opacity` (default 1), to multiply with the colour's alpha.
    public var opacity: Double
}

/// A patterned polygon fill (a `fill` layer with `fill-pattern`).
public struct PatternLook: Sendable, Hashable {
    /// The `fill-pattern` image name.
    public var name: String
    /// The image at 1× and 2×; nil when the sprite lacks it (MapLibre then draws nothing).
    public var image: SpriteImageSet?
    /// `fill-opacity` (default 1).
    public var opacity: Double
}

/// A stroke: a polygon outline or a line (a `line` layer).
public struct StrokeLook: Sendable, Hashable {
    /// True when the stroked feature is a polygon (its outline), false for a line feature.
    public var isOutline: Bool
    /// `line-color` (default black).
    public var color: LookColor
    /// `line-width` in points (default 1).
    public var width: Double
    /// `line-opacity` (default 1).
    public var opacity: Double
    /// `line-dasharray` in line widths (dash, gap, …), nil for a solid line. Core Graphics wants the lengths in
    /// points: multiply each by `width`.
    public var dashes: [Double]?
}

/// A point drawn as a circle (a `circle` layer).
public struct CircleLook: Sendable, Hashable {
    /// `circle-color` (default black).
    public var color: LookColor
    /// `circle-radius` in points (default 5).
    public var radius: Double
    /// `circle-opacity` (default 1).
    public var opacity: Double
    /// `circle-stroke-color` (default black).
    public var strokeColor: LookColor
    /// `circle-stroke-width` (default 0).
    public var strokeWidth: Double
}

/// A point drawn as a sprite icon (a `symbol` layer with `icon-image`).
public struct IconLook: Sendable, Hashable {
    /// The `icon-image` name.
    public var name: String
    /// The image at 1× and 2×; nil when the sprite lacks it.
    public var image: SpriteImageSet?
    /// `icon-size` (default 1), a factor on the image's size.
    public var size: Double
}

/// A text label (a `symbol` layer with `text-field`).
public struct LabelLook: Sendable, Hashable {
    /// The text for this feature ("" draws nothing).
    public var text: String
    /// The attribute the text is read from when `text-field` is `["to-string", ["get", NAME]]` or
    /// `["get", NAME]`; nil for other forms (a `concat`, a constant).
    public var field: String?
    /// `text-color` (default black).
    public var color: LookColor
    /// `text-size` in points (default 16).
    public var size: Double
    /// `text-halo-color` (default transparent).
    public var haloColor: LookColor
    /// `text-halo-width` (default 0).
    public var haloWidth: Double
    /// `text-font`, the font stack.
    public var font: [String]
    /// `symbol-placement`: `point` (default) or `line` (along the line).
    public var placement: String
}

/// What one style layer draws for a feature.
public enum LayerLook: Sendable, Hashable {
    /// A solid fill.
    case fill(FillLook)
    /// A pattern fill.
    case pattern(PatternLook)
    /// An outline or a line.
    case stroke(StrokeLook)
    /// A circle.
    case circle(CircleLook)
    /// An icon.
    case icon(IconLook)
    /// A label.
    case label(LabelLook)
}

/// One style layer that draws the feature.
public struct DrawnLayer: Sendable, Hashable {
    /// The style layer's `id` (Kartpack writes `LAYER-CLASS-KIND…`).
    public var id: String
    /// What it draws.
    public var look: LayerLook
}

/// Everything a style draws for one feature at one zoom, bottom to top, with the topmost look of each kind.
public struct ClientLook: Sendable, Hashable {
    /// Every style layer that draws the feature, in draw order (a `symbol` layer with both an icon and a text
    /// gives two entries).
    public var layers: [DrawnLayer]

    /// True when no layer draws the feature.
    public var isEmpty: Bool { layers.isEmpty }
    /// The topmost solid fill.
    public var fill: FillLook? { last { if case .fill(let l) = $0 { l } else { nil } } }
    /// The topmost pattern fill.
    public var pattern: PatternLook? { last { if case .pattern(let l) = $0 { l } else { nil } } }
    /// The topmost stroke (outline or line).
    public var stroke: StrokeLook? { last { if case .stroke(let l) = $0 { l } else { nil } } }
    /// The topmost circle.
    public var circle: CircleLook? { last { if case .circle(let l) = $0 { l } else { nil } } }
    /// The topmost icon.
    public var icon: IconLook? { last { if case .icon(let l) = $0 { l } else { nil } } }
    /// The topmost label.
    public var label: LabelLook? { last { if case .label(let l) = $0 { l } else { nil } } }

    private func last<T>(_ pick: (LayerLook) -> T?) -> T? {
        for l in layers.reversed() { if let v = pick(l.look) { return v } }
        return nil
    }
}
