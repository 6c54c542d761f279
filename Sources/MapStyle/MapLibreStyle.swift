import Foundation
import KartpackCore
import KartpackJSON
public import Styling
import TileArchive
/// Where the client finds the tiles.
public enum TileSourceURL: Sendable, Hashable {
    /// A `url` (TileJSON, or `pmtiles://` + the archive's URL for the PMTiles protocol).
    case url(String)
    /// A `tiles` URL template (`https://host/tiles/{z}/{x}/{y}.pbf`), e.g. for MBTiles served by a tile server.
    case tiles(String)
}

/// Options for a generated MapLibre style.
public struct MapLibreStyleOptions: Sendable, Hashable {
    /// The style `name`; the package name (else `Kartpack`) when nil.
    public var name: String?
    /// The `glyphs` URL template, written when a layer has labels; `StyleExport` points it at the glyphs it writes.
    public var glyphsURL = "glyphs/{fontstack}/{range}.pbf"
    /// The `text-font` stack of labels.
    public var fonts: [String] = ["Noto Sans Regular"]
    /// The viewport the first view is fitted into, in CSS pixels.
    public var viewport: (width: Double, height: Double) = (1024, 768)
    /// Planning options.
    public var plan = StylePlanOptions()

    /// The defaults.
    public init() {}

    public static func == (a: MapLibreStyleOptions, b: MapLibreStyleOptions) -> Bool {
        a.name == b.name && a.glyphsURL == b.glyphsURL && a.fonts == b.fonts && a.viewport == b.viewport
            && a.plan == b.plan
    }

    public func hash(into h: inout Hasher) {
        h.combine(name)
        h.combine(glyphsURL)
        h.combine(fonts)
        h.combine(plan)
    }
}

/// A generated style with what it needs besides itself.
public struct MapLibreStyleDocument: Sendable {
    /// The style as JSON (object keys sorted).
    public var json: JSONValue
    /// The plan the style was made from (layer order, values).
    public var plan: StylePlan
    /// The images the style's `sprite` must hold; empty when the style has no `sprite`.
    public var spriteImages: [GeneratedSpriteImage] { plan.images }
    /// Warnings about what the style cannot draw as the sheet says.
    public var warnings: [String] { plan.warnings }
    /// The style as pretty-printed JSON text.
    public var text: String { StyleJSON.pretty(json) }
}

/// Builds a MapLibre GL style (spec version 8) from a stylesheet and a package's metadata.
///
/// The source `kartpack` is the package; a `background` layer comes first (the sheet's `@map { background }`);
/// then the layers of `StylePlan` in draw order, with the cascade as MapLibre expressions (`case`, `all`,
/// `index-of`, …; see `StyleExpression`). `center` and `zoom` fit the package's bounds into the viewport;
/// the source carries the package's attribution, bounds and zoom range. Output is deterministic.
public enum MapLibreStyle {
    /// The style for `sheet` over `package`.
    /// - Parameters:
    ///   - source: where the client reads the tiles.
    ///   - spriteURL: the `sprite` base URL (the client adds `.json`, `.png`, `@2x.…`); written only when a layer
    ///     uses a pattern or an icon.
    public static func document(
        sheet: Stylesheet, package: PackageInfo, source: TileSourceURL, spriteURL: String,
        options: MapLibreStyleOptions = MapLibreStyleOptions()
    ) -> MapLibreStyleDocument {
        let plan = StylePlan(sheet: sheet, package: package, options: options.plan)
        var layers: [JSONValue] = [
            sorted([
                ("id", .string("background")), ("type", .string("background")),
                ("paint", .object([("background-color", .string(colorString(plan.background)))])),
            ])
        ]
        layers += plan.layers.map { layerJSON($0, fonts: options.fonts) }
        var sourceMembers: [(key: String, value: JSONValue)] = [("type", .string("vector"))]
        switch source {
        case .url(let u): sourceMembers.append(("url", .string(u)))
        case .tiles(let t):
            sourceMembers.append(("tiles", .array([.string(t)])))
            if let lo = package.minZoom { sourceMembers.append(("minzoom", .int(Int64(lo)))) }
            if let hi = package.maxZoom { sourceMembers.append(("maxzoom", .int(Int64(hi)))) }
            if let b = package.bounds {
                sourceMembers.append(
                    ("bounds", .array([b.west, b.south, b.east, b.north].map { StyleJSON.number(rounded($0, 7)) })))
            }
        }
        if let a = package.attribution { sourceMembers.append(("attribution", .string(a))) }
        var root: [(key: String, value: JSONValue)] = [
            ("layers", .array(layers)),
            ("metadata", .object([("kartpack:generator", .string(Kartpack.generator))])),
            ("name", .string(options.name ?? package.name ?? "Kartpack")),
            ("sources", .object([("kartpack", sorted(sourceMembers))])),
            ("version", .int(8)),
        ]
        if !plan.images.isEmpty { root.append(("sprite", .string(spriteURL))) }
        if plan.layers.contains(where: { $0.kind == .label }) { root.append(("glyphs", .string(options.glyphsURL))) }
        if let view = firstView(package, viewport: options.viewport) {
            root.append(
                (
                    "center",
                    .array([StyleJSON.number(rounded(view.longitude, 6)), StyleJSON.number(rounded(view.latitude, 6))])
                ))
            root.append(("zoom", StyleJSON.number(rounded(view.zoom, 2))))
        }
        return MapLibreStyleDocument(json: sorted(root), plan: plan)
    }

    /// The view that shows the package's bounds whole in `viewport` CSS pixels (512-pixel tiles, as MapLibre),
    /// clamped to the package's zoom range; the header's centre when the bounds are unknown, and its longitude
    /// (fitted by latitude) for data across the antimeridian (bounds −180…180, centre beyond ±90°).
    public static func firstView(_ package: PackageInfo, viewport: (width: Double, height: Double))
        -> (longitude: Double, latitude: Double, zoom: Double)?
    {
        guard let b = package.bounds, b.east > b.west, b.north > b.south else {
            return package.center.map { ($0.longitude, $0.latitude, Double($0.zoom)) }
        }
        let sw = SphericalMercator.project(lon: b.west, lat: max(b.south, -SphericalMercator.maxLatitude))
        let ne = SphericalMercator.project(lon: b.east, lat: min(b.north, SphericalMercator.maxLatitude))
        let world = 2 * SphericalMercator.halfWorld
        let fx = (ne.x - sw.x) / world
        let fy = (ne.y - sw.y) / world
        // Data split at ±180° has bounds −180…180 (TileJSON bounds do not wrap) and its centre on the data: open
        // there, fitted by latitude only.
        let across = b.west <= -179.99 && b.east >= 179.99
        let centre = package.center.flatMap { abs($0.longitude) > 90 && across ? $0.longitude : nil }
        var zoom = 24.0
        if fx > 0, centre == nil { zoom = min(zoom, log2(viewport.width / (512 * fx))) }
        if fy > 0 { zoom = min(zoom, log2(viewport.height / (512 * fy))) }
        zoom = (zoom * 4).rounded(.down) / 4
        zoom = min(max(zoom, Double(package.minZoom ?? 0)), Double(package.maxZoom ?? 24))
        let c = SphericalMercator.unproject(x: (sw.x + ne.x) / 2, y: (sw.y + ne.y) / 2)
        return (centre ?? c.longitude, c.latitude, zoom)
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

    /// The filter of a planned layer: class, geometry type (when the package does not say) and condition.
    static func filter(_ l: PlannedLayer) -> JSONValue? {
        var parts: [JSONValue] = []
        if l.filtersGeometry, let family = l.geometry {
            let types: [String]
            switch family {
            case .point: types = ["Point", "MultiPoint"]
            case .line: types = ["LineString", "MultiLineString"]
            case .polygon: types = ["Polygon", "MultiPolygon"]
            }
            parts.append(
                .array([
                    .string("in"), .array([.string("geometry-type")]),
                    .array([.string("literal"), .array(types.map { .string($0) })]),
                ]))
        }
        let f = l.filter
        if f != .bool(true) {
            if case .all(let inner) = f { parts += inner.map(\.json) } else { parts.append(f.json) }
        }
        if parts.isEmpty { return nil }
        return parts.count == 1 ? parts[0] : .array([.string("all")] + parts)
    }

    static func sorted(_ members: [(key: String, value: JSONValue)]) -> JSONValue {
        .object(members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
    }

    static func layerJSON(_ l: PlannedLayer, fonts: [String]) -> JSONValue {
        var paint: [(key: String, value: JSONValue)] = l.paint.map { ($0.key, $0.value.json) }
        var layout: [(key: String, value: JSONValue)] = l.layout.map { ($0.key, $0.value.json) }
        switch l.kind {
        case .fill, .pattern, .circle:
            break
        case .outline, .line:
            layout.append(("line-join", .string("round")))
            if let d = l.dashes { paint.append(("line-dasharray", .array(d.map { StyleJSON.number(rounded($0, 4)) }))) }
        case .icon:
            layout.append(("icon-allow-overlap", .bool(true)))
        case .label:
            layout.append(("text-font", .array(fonts.map { .string($0) })))
            paint.append(("text-halo-color", .string("#ffffff")))
            paint.append(("text-halo-width", .int(1)))
            if l.sourceLayer == l.packageLayer && l.geometry == .line {
                layout.append(("symbol-placement", .string("line")))
            } else if l.sourceLayer == l.packageLayer && l.geometry == .point {
                layout.append(("text-anchor", .string("top")))
                layout.append(("text-offset", .array([.int(0), .double(0.6)])))
            }
        }
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(l.id)), ("type", .string(l.kind.mapLibreType)), ("source", .string("kartpack")),
            ("source-layer", .string(l.sourceLayer)), ("paint", sorted(paint)),
        ]
        if let f = filter(l) { members.append(("filter", f)) }
        if !layout.isEmpty { members.append(("layout", sorted(layout))) }
        if let z = l.minZoom { members.append(("minzoom", .int(Int64(z)))) }
        if let z = l.maxZoom { members.append(("maxzoom", .int(Int64(z)))) }
        return sorted(members)
    }
}
