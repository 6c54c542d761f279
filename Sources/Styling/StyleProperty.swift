/// The properties a sheet may declare. Unknown names are kept as warnings, not errors.
public enum StyleProperty: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    // Pipeline properties.
    /// The class name written into tiles as the feature property `class`.
    case className = "class"
    /// The lowest zoom at which the feature is written (0…24).
    case minZoom = "min-zoom"
    /// The highest zoom at which the feature is written (0…24).
    case maxZoom = "max-zoom"
    /// The output layer name.
    case layer
    /// The attributes kept in tiles (others are dropped).
    case keep
    /// `true` drops the feature.
    case exclude
    /// At most this many points of the layer per tile below the max zoom, spread evenly (the largest value any
    /// feature of the output layer gets counts).
    case maxPoints = "max-points"
    /// `true`: polygons and lines of the output layer that thinning leaves out of a tile are merged into a kept
    /// neighbour (`--coalesce` for one layer; any feature of the layer with `true` turns it on).
    case coalesce
    /// How the tile limits thin the feature: `auto` (default), `priority N` (0–1000: thinned after every lower
    /// priority) or `never` (kept whole at every zoom it is shown; `ThinningPolicy`).
    case thinning
    /// The attributes that tell the features of the output layer apart for coalescing: a feature is never merged
    /// into a neighbour whose values of these attributes differ (e.g. the owner of a property).
    case identity
    // Client properties.
    /// Fill colour.
    case fill
    /// Fill opacity, 0…1.
    case fillOpacity = "fill-opacity"
    /// A named fill pattern.
    case fillPattern = "fill-pattern"
    /// The colour of the pattern's lines or dots.
    case patternColor = "pattern-color"
    /// The colour behind the pattern (transparent when unset).
    case patternBackground = "pattern-background"
    /// The distance between pattern lines or dots in pixels (4…64).
    case patternSpacing = "pattern-spacing"
    /// The pattern's line width (or dot diameter) in pixels (> 0).
    case patternWidth = "pattern-width"
    /// Line / outline colour.
    case stroke
    /// Line width in pixels (≥ 0).
    case strokeWidth = "stroke-width"
    /// Dash lengths in line widths.
    case strokeDasharray = "stroke-dasharray"
    /// Overall opacity, 0…1.
    case opacity
    /// The attribute whose value labels the feature.
    case label
    /// Label colour.
    case textColor = "text-color"
    /// Label size in pixels (> 0).
    case textSize = "text-size"
    /// An icon: a built-in symbol name or `url("file.svg")` relative to the sheet.
    case icon

    /// The name as written in a sheet.
    public var description: String { rawValue }

    /// True for the properties that steer the pipeline rather than the client.
    public var isPipelineProperty: Bool {
        switch self {
        case .className, .minZoom, .maxZoom, .layer, .keep, .exclude, .maxPoints, .coalesce, .thinning, .identity:
            true
        default: false
        }
    }

    /// A distinct bit per property, for cascade bookkeeping.
    var bit: UInt32 {
        UInt32(1) << UInt32(StyleProperty.allCases.firstIndex(of: self) ?? 0)
    }
}
