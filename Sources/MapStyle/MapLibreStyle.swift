import Foundation
import KartpackCore
import KartpackJSON
public import Styling
public import TileArchive

/// Options for a generated MapLibre style.
public struct MapLibreStyleOptions: Sendable, Hashable {
    /// The style `name`; the package name (else `Kartpack`) when nil.
    public var name: String?
    /// The `glyphs` URL template, written when a class has a label.
    public var glyphsURL: String = MapLibreStyle.placeholderGlyphsURL
    /// The `text-font` stack of labels.
    public var fonts: [String] = ["Noto Sans Regular"]
    /// Planning options (defaults for radius, text size, colour).
    public var plan = StylePlanOptions()

    /// The defaults.
    public init() {}
}

/// A generated style with what it needs besides itself.
public struct MapLibreStyleDocument: Sendable {
    /// The style as JSON (object keys sorted).
    public var json: JSONValue
    /// The plan the style was made from (layer order, resolved values).
    public var plan: StylePlan
    /// The images the style's `sprite` must hold; empty when the style has no `sprite`.
    public var spriteImages: [SpriteImage] { plan.images }
    /// Warnings about classes the style cannot draw as the sheet says.
    public var warnings: [String] { plan.warnings }
    /// The style as pretty-printed JSON text.
    public var text: String { StyleJSON.pretty(json) }
}

/// Builds a MapLibre GL style (spec version 8) from a stylesheet and a package's metadata.
///
/// The source `kartpack` is the package (`pmtiles://…`, `mbtiles://…` or any URL); one style layer per (package
/// layer, class, kind) filtered with `["==", ["get", "class"], NAME]`, in the draw order of `StylePlan`: polygon
/// fills, pattern fills, polygon outlines, lines, circles and icons, labels. Output is deterministic: object keys
/// are sorted, layers follow the plan.
public enum MapLibreStyle {
    /// The default `glyphs` URL: a placeholder on the reserved `.invalid` domain that **must be replaced** (with
    /// `MapLibreStyleOptions.glyphsURL`) by a glyph server or the offline client's bundled glyphs before labels
    /// can show.
    public static let placeholderGlyphsURL = "https://glyphs.invalid/{fontstack}/{range}.pbf"

    /// The source URL for a package file: `pmtiles://PATH` or `mbtiles://PATH` by the file's format.
    public static func sourceURL(package: PackageInfo, path: String? = nil) -> String {
        "\(package.format.rawValue)://\(path ?? package.path)"
    }

    /// The style JSON text for `sheet` over `package` (see `document`).
    public static func generate(
        sheet: Stylesheet, package: PackageInfo, sourceURL: String, spriteURL: String?,
        options: MapLibreStyleOptions = MapLibreStyleOptions()
    ) -> String {
        document(sheet: sheet, package: package, sourceURL: sourceURL, spriteURL: spriteURL, options: options).text
    }

    /// The style for `sheet` over `package`, with its plan and sprite needs.
    /// - Parameters:
    ///   - sourceURL: the vector source URL (`sourceURL(package:)` or a URL the client can load).
    ///   - spriteURL: the `sprite` base URL (the client adds `.json`, `.png`, `@2x.…`); written only when a layer
    ///     uses a pattern or an icon, as `sprite` when nil (resolved next to the style).
    public static func document(
        sheet: Stylesheet, package: PackageInfo, sourceURL: String, spriteURL: String?,
        options: MapLibreStyleOptions = MapLibreStyleOptions()
    ) -> MapLibreStyleDocument {
        let plan = StylePlan(sheet: sheet, package: package, options: options.plan)
        var root: [(key: String, value: JSONValue)] = [
            ("layers", .array(plan.layers.map { layerJSON($0, fonts: options.fonts) })),
            ("metadata", .object([("kartpack:generator", .string(Kartpack.generator))])),
            ("name", .string(options.name ?? package.name ?? "Kartpack")),
            ("sources", .object([("kartpack", .object([("type", .string("vector")), ("url", .string(sourceURL))]))])),
            ("version", .int(8)),
        ]
        if !plan.images.isEmpty { root.append(("sprite", .string(spriteURL ?? "sprite"))) }
        if plan.layers.contains(where: { $0.kind == .label }) { root.append(("glyphs", .string(options.glyphsURL))) }
        if let c = package.center {
            root.append(
                (
                    "center",
                    .array([StyleJSON.number(rounded(c.longitude, 7)), StyleJSON.number(rounded(c.latitude, 7))])
                ))
            root.append(("zoom", .int(Int64(c.zoom))))
        }
        root.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return MapLibreStyleDocument(json: .object(root), plan: plan)
    }

    static func rounded(_ v: Double, _ digits: Int) -> Double {
        let f = pow(10.0, Double(digits))
        return (v * f).rounded() / f
    }

    /// A colour as MapLibre reads it: `#rrggbb`, or `rgba(r, g, b, a)` when not opaque.
    public static func colorString(_ c: StyleColor) -> String {
        if c.alpha == 255 { return c.hexString }
        let a = rounded(Double(c.alpha) / 255, 3)
        return "rgba(\(c.red), \(c.green), \(c.blue), \(formatNumber(a)))"
    }

    static func formatNumber(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }

    /// The filter of a planned layer.
    static func filter(_ l: PlannedLayer) -> JSONValue {
        let byClass: JSONValue = .array([
            .string("=="), .array([.string("get"), .string("class")]), .string(l.className),
        ])
        guard l.filtersGeometry, let family = l.geometry else { return byClass }
        let types: [String]
        switch family {
        case .point: types = ["Point", "MultiPoint"]
        case .line: types = ["LineString", "MultiLineString"]
        case .polygon: types = ["Polygon", "MultiPolygon"]
        }
        let byType: JSONValue = .array([
            .string("in"), .array([.string("geometry-type")]),
            .array([.string("literal"), .array(types.map { .string($0) })]),
        ])
        return .array([.string("all"), byClass, byType])
    }

    static func sorted(_ members: [(key: String, value: JSONValue)]) -> JSONValue {
        .object(members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
    }

    static func layerJSON(_ l: PlannedLayer, fonts: [String]) -> JSONValue {
        var paint: [(key: String, value: JSONValue)] = []
        var layout: [(key: String, value: JSONValue)] = []
        func color(_ c: StyleColor) -> JSONValue { .string(colorString(c)) }
        func num(_ d: Double) -> JSONValue { StyleJSON.number(rounded(d, 4)) }
        switch l.kind {
        case .fill:
            paint.append(("fill-color", color(l.color)))
            paint.append(("fill-opacity", num(l.opacity)))
            if let o = l.outlineColor { paint.append(("fill-outline-color", color(o))) }
        case .pattern:
            paint.append(("fill-pattern", .string(l.imageName ?? "")))
            paint.append(("fill-opacity", num(l.opacity)))
        case .outline, .line:
            paint.append(("line-color", color(l.color)))
            paint.append(("line-width", num(l.width)))
            paint.append(("line-opacity", num(l.opacity)))
            if let d = l.dashes { paint.append(("line-dasharray", .array(d.map(num)))) }
            layout.append(("line-join", .string("round")))
        case .circle:
            paint.append(("circle-color", color(l.color)))
            paint.append(("circle-radius", num(l.radius)))
            paint.append(("circle-opacity", num(l.opacity)))
            if let o = l.outlineColor {
                paint.append(("circle-stroke-color", color(o)))
                paint.append(("circle-stroke-width", num(l.width)))
                paint.append(("circle-stroke-opacity", num(l.outlineOpacity)))
            }
        case .icon:
            layout.append(("icon-image", .string(l.imageName ?? "")))
            layout.append(("icon-allow-overlap", .bool(true)))
            paint.append(("icon-opacity", num(l.opacity)))
        case .label:
            layout.append(("text-field", .array([.string("get"), .string(l.labelField ?? "")])))
            layout.append(("text-font", .array(fonts.map { .string($0) })))
            layout.append(("text-size", num(l.textSize)))
            if l.geometry == .line {
                layout.append(("symbol-placement", .string("line")))
            } else if l.geometry == .point {
                layout.append(("text-anchor", .string("top")))
                layout.append(("text-offset", .array([.int(0), .double(0.6)])))
            }
            paint.append(("text-color", color(l.color)))
            paint.append(("text-opacity", num(l.opacity)))
            paint.append(("text-halo-color", .string("#ffffff")))
            paint.append(("text-halo-width", .int(1)))
        }
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(l.id)), ("type", .string(l.kind.mapLibreType)), ("source", .string("kartpack")),
            ("source-layer", .string(l.sourceLayer)), ("filter", filter(l)), ("paint", sorted(paint)),
        ]
        if !layout.isEmpty { members.append(("layout", sorted(layout))) }
        if let z = l.minZoom { members.append(("minzoom", .int(Int64(z)))) }
        if let z = l.maxZoom { members.append(("maxzoom", .int(Int64(z)))) }
        return sorted(members)
    }
}
