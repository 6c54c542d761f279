/// The tables of the MapLibre style specification (v8) the validator checks against: layer and source types,
/// root and layer keys, layout and paint properties per layer type, expression operators and their arities.
extension MapLibreStyleValidator {
    static let layerTypes: Set<String> = [
        "fill", "line", "symbol", "circle", "heatmap", "fill-extrusion", "raster", "hillshade", "background",
        "color-relief",
    ]
    static let sourceTypes: Set<String> = ["vector", "raster", "raster-dem", "geojson", "image", "video"]
    static let rootKeys: Set<String> = [
        "version", "name", "metadata", "center", "centerAltitude", "zoom", "bearing", "pitch", "roll", "light", "sky",
        "projection", "terrain", "sources", "sprite", "glyphs", "font-faces", "transition", "layers", "state",
    ]
    static let layerKeys: Set<String> = [
        "id", "type", "metadata", "source", "source-layer", "minzoom", "maxzoom", "filter", "layout", "paint",
    ]

    static let layout: [String: Set<String>] = [
        "fill": ["fill-sort-key", "visibility"],
        "line": ["line-cap", "line-join", "line-miter-limit", "line-round-limit", "line-sort-key", "visibility"],
        "circle": ["circle-sort-key", "visibility"],
        "symbol": [
            "symbol-placement", "symbol-spacing", "symbol-avoid-edges", "symbol-sort-key", "symbol-z-order",
            "icon-allow-overlap", "icon-overlap", "icon-ignore-placement", "icon-optional", "icon-rotation-alignment",
            "icon-size", "icon-text-fit", "icon-text-fit-padding", "icon-image", "icon-rotate", "icon-padding",
            "icon-keep-upright", "icon-offset", "icon-anchor", "icon-pitch-alignment", "text-pitch-alignment",
            "text-rotation-alignment", "text-field", "text-font", "text-size", "text-max-width", "text-line-height",
            "text-letter-spacing", "text-justify", "text-radial-offset", "text-variable-anchor",
            "text-variable-anchor-offset", "text-anchor", "text-max-angle", "text-writing-mode", "text-rotate",
            "text-padding", "text-keep-upright", "text-transform", "text-offset", "text-allow-overlap", "text-overlap",
            "text-ignore-placement", "text-optional", "visibility",
        ],
        "background": ["visibility"], "raster": ["visibility"], "hillshade": ["visibility"],
        "heatmap": ["visibility"], "fill-extrusion": ["visibility"], "color-relief": ["visibility"],
    ]
    static let paint: [String: Set<String>] = [
        "fill": [
            "fill-antialias", "fill-opacity", "fill-color", "fill-outline-color", "fill-translate",
            "fill-translate-anchor", "fill-pattern",
        ],
        "line": [
            "line-opacity", "line-color", "line-translate", "line-translate-anchor", "line-width", "line-gap-width",
            "line-offset", "line-blur", "line-dasharray", "line-pattern", "line-gradient",
        ],
        "circle": [
            "circle-radius", "circle-color", "circle-blur", "circle-opacity", "circle-translate",
            "circle-translate-anchor", "circle-pitch-scale", "circle-pitch-alignment", "circle-stroke-width",
            "circle-stroke-color", "circle-stroke-opacity",
        ],
        "symbol": [
            "icon-opacity", "icon-color", "icon-halo-color", "icon-halo-width", "icon-halo-blur", "icon-translate",
            "icon-translate-anchor", "text-opacity", "text-color", "text-halo-color", "text-halo-width",
            "text-halo-blur", "text-translate", "text-translate-anchor",
        ],
        "background": ["background-color", "background-pattern", "background-opacity"],
        "raster": [
            "raster-opacity", "raster-hue-rotate", "raster-brightness-min", "raster-brightness-max",
            "raster-saturation", "raster-contrast", "raster-resampling", "raster-fade-duration",
        ],
        "hillshade": [
            "hillshade-illumination-direction", "hillshade-illumination-anchor", "hillshade-exaggeration",
            "hillshade-shadow-color", "hillshade-highlight-color", "hillshade-accent-color",
        ],
        "heatmap": ["heatmap-radius", "heatmap-weight", "heatmap-intensity", "heatmap-color", "heatmap-opacity"],
        "fill-extrusion": [
            "fill-extrusion-opacity", "fill-extrusion-color", "fill-extrusion-translate",
            "fill-extrusion-translate-anchor", "fill-extrusion-pattern", "fill-extrusion-height",
            "fill-extrusion-base", "fill-extrusion-vertical-gradient",
        ],
        "color-relief": ["color-relief-opacity", "color-relief-color"],
    ]
    static let imageProperties: Set<String> = [
        "fill-pattern", "line-pattern", "icon-image", "background-pattern", "fill-extrusion-pattern",
    ]
    static let nonNegative: Set<String> = [
        "line-width", "line-gap-width", "line-blur", "circle-radius", "circle-blur", "circle-stroke-width",
        "text-size", "text-halo-width", "text-halo-blur", "icon-size", "icon-halo-width", "icon-halo-blur",
        "text-max-width", "heatmap-radius", "fill-extrusion-height", "fill-extrusion-base",
    ]
    static let enums: [String: Set<String>] = [
        "visibility": ["visible", "none"],
        "line-cap": ["butt", "round", "square"],
        "line-join": ["bevel", "round", "miter"],
        "symbol-placement": ["point", "line", "line-center"],
        "text-anchor": [
            "center", "left", "right", "top", "bottom", "top-left", "top-right", "bottom-left", "bottom-right",
        ],
        "icon-anchor": [
            "center", "left", "right", "top", "bottom", "top-left", "top-right", "bottom-left", "bottom-right",
        ],
        "text-transform": ["none", "uppercase", "lowercase"],
        "text-justify": ["auto", "left", "center", "right"],
        "fill-translate-anchor": ["map", "viewport"], "line-translate-anchor": ["map", "viewport"],
        "circle-translate-anchor": ["map", "viewport"],
    ]

    /// Expression operators with their argument counts (min, max; nil = unbounded).
    static let operators: [String: (min: Int, max: Int?)] = [
        "get": (1, 2), "has": (1, 2), "in": (2, 2), "index-of": (2, 3), "slice": (2, 3), "length": (1, 1),
        "at": (2, 2), "literal": (1, 1), "array": (1, 3), "boolean": (1, nil), "number": (1, nil),
        "string": (1, nil), "object": (1, nil), "to-boolean": (1, 1), "to-number": (1, nil), "to-string": (1, 1),
        "to-color": (1, nil), "typeof": (1, 1), "geometry-type": (0, 0), "id": (0, 0), "properties": (0, 0),
        "feature-state": (1, 1), "zoom": (0, 0), "==": (2, 3), "!=": (2, 3), "<": (2, 3), "<=": (2, 3), ">": (2, 3),
        ">=": (2, 3), "!": (1, 1), "all": (0, nil), "any": (0, nil), "case": (3, nil), "match": (4, nil),
        "coalesce": (1, nil), "step": (3, nil), "interpolate": (4, nil), "let": (3, nil), "var": (1, 1),
        "concat": (1, nil), "downcase": (1, 1), "upcase": (1, 1), "format": (1, nil), "image": (1, 1),
        "number-format": (2, 2), "resolved-locale": (1, 1), "collator": (1, 1), "rgb": (3, 3), "rgba": (4, 4),
        "to-rgba": (1, 1), "+": (2, nil), "*": (2, nil), "-": (1, 2), "/": (2, 2), "%": (2, 2), "^": (2, 2),
        "abs": (1, 1), "ceil": (1, 1), "floor": (1, 1), "round": (1, 1), "sqrt": (1, 1), "ln": (1, 1),
        "log10": (1, 1), "log2": (1, 1), "min": (1, nil), "max": (1, nil), "pi": (0, 0), "e": (0, 0), "ln2": (0, 0),
        "within": (1, 1), "distance": (1, 1), "global-state": (1, 1), "accumulated": (0, 0),
        "line-progress": (0, 0), "heatmap-density": (0, 0), "is-supported-script": (1, 1), "elevation": (0, 0),
    ]
    static let booleanOperators: Set<String> = [
        "==", "!=", "<", "<=", ">", ">=", "all", "any", "!", "in", "has", "boolean", "to-boolean", "case", "match",
        "within", "coalesce", "is-supported-script",
    ]
}
