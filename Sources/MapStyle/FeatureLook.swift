import KartpackCore
public import Styling
public import KartpackJSON

/// What a client should draw for one feature, straight from the Swift cascade's `ComputedStyle` (no expressions):
/// the MapLibre paint and layout values per draw kind, by the rules `StylePlan` documents. `kartpack preview
/// --features` writes these for every drawn feature so that tests can hold a real client's evaluated style
/// against the sheet.
public enum FeatureLook {
    /// `{kind: {property: value}}` for the kinds the feature is drawn with.
    public static func expected(
        _ s: ComputedStyle, family: GeometryFamily, options: StylePlanOptions = StylePlanOptions()
    ) -> [(key: String, value: JSONValue)] {
        func color(_ c: StyleColor) -> JSONValue { .string(MapLibreStyle.colorString(c)) }
        func num(_ d: Double) -> JSONValue { StyleJSON.number(MapLibreStyle.rounded(d, 4)) }
        let opacity = min(max(s.opacity ?? 1, 0), 1)
        let fillOpacity = min(max(s.fillOpacity ?? 1, 0), 1)
        let width = max(s.strokeWidth ?? 1, 0)
        let dashes: JSONValue = s.strokeDasharray.map { .array($0.map(num)) } ?? .null
        var out: [(key: String, value: JSONValue)] = []
        switch family {
        case .polygon:
            if let f = s.fill {
                out.append(("fill", .object([("fill-color", color(f)), ("fill-opacity", num(fillOpacity * opacity))])))
            }
            if let p = s.fillPattern {
                let spec = PatternSpec(
                    pattern: p, color: s.patternColor ?? s.stroke ?? options.defaultColor,
                    background: s.patternBackground, spacing: s.patternSpacing ?? PatternSpec.defaultSpacing,
                    width: s.patternWidth ?? PatternSpec.defaultWidth)
                out.append(("pattern", .object([("fill-pattern", .string(GeneratedSpriteImage.patternName(spec)))])))
            }
            if width > 0, s.stroke != nil || (s.fill == nil && s.fillPattern == nil) {
                out.append(
                    (
                        "outline",
                        .object([
                            ("line-color", color(s.stroke ?? options.defaultColor)), ("line-width", num(width)),
                            ("line-dasharray", dashes),
                        ])
                    ))
            }
        case .line:
            if width > 0 {
                out.append(
                    (
                        "line",
                        .object([
                            ("line-color", color(s.stroke ?? s.fill ?? options.defaultColor)),
                            ("line-width", num(width)),
                            ("line-dasharray", dashes),
                        ])
                    ))
            }
        case .point:
            switch s.icon {
            case .symbol(let name)?:
                let symbol = MapSymbol(rawValue: name) ?? .dot
                out.append(
                    ("icon", .object([("icon-image", .string(GeneratedSpriteImage.symbolName(symbol, s.fill)))])))
            case .file(let path)?:
                out.append(("icon", .object([("icon-image", .string(GeneratedSpriteImage.fileIconName(path)))])))
            case nil:
                out.append(("circle", .object([("circle-color", color(s.fill ?? s.stroke ?? options.defaultColor))])))
            }
        }
        if let label = s.label {
            out.append(
                (
                    "label",
                    .object([
                        ("text-field-attribute", .string(label)),
                        ("text-color", color(s.textColor ?? options.defaultColor)),
                        ("text-size", num(s.textSize ?? options.defaultTextSize)),
                    ])
                ))
        }
        return out
    }
}
