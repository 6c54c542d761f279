import Foundation
import KartpackJSON

/// A client style folder as `kartpack style` writes it (`style.json`, `sprite.json/.png`, `sprite@2x.json/.png`),
/// read so that an app can draw package features natively, with the look MapLibre would give them.
///
/// ```swift
/// let style = try ClientStyle(contentsOf: Bundle.main.url(forResource: "map", withExtension: nil)!)
/// let look = style.look(for: feature, zoom: 12)
/// look.fill?.color, look.stroke?.width, look.pattern?.image?.image(forScale: 2)
/// ```
///
/// The style's layers are compiled when the folder is read: every `filter` and every paint or layout value the
/// look uses must be in the supported subset of MapLibre expressions (docs/kartpack-kit.md), else the initializer
/// throws `invalidStyle` naming the layer and property. Evaluation then follows MapLibre: a feature is drawn by
/// each layer of its `source-layer` that is visible at the zoom (`minzoom` ≤ zoom < `maxzoom`, `visibility` not
/// `none`), whose type draws its geometry and whose filter is true; a run-time error (say `<` between text and a
/// number) makes a filter false and a value its default, as in MapLibre.
public struct ClientStyle: Sendable {
    /// The style's `name`.
    public var name: String?
    /// The `background` layer's colour, if the style has one.
    public var background: LookColor?
    /// The style's layer ids in draw order (the background included).
    public var layerIDs: [String] { layers.map(\.id) }
    /// Every sprite image by name, at each pixel ratio the folder has.
    public private(set) var images: [String: SpriteImageSet]

    let layers: [StyleLayer]

    /// The largest `style.json` read.
    public static let maxStyleBytes = 32 << 20

    /// Reads `style.json` and the sprite files of a style folder (a directory `file:` URL; a URL of the
    /// `style.json` itself is also accepted). The sprite is read when the style names one: `sprite.json` +
    /// `sprite.png` must exist, `sprite@2x.*` is read when present.
    /// - Throws: `cannotOpen` for a missing or unreadable file, `invalidStyle` for a style or sprite this library
    ///   cannot use (with the layer and property).
    public init(contentsOf folder: URL) throws(KartpackKitError) {
        var folder = folder
        if folder.pathExtension == "json" { folder = folder.deletingLastPathComponent() }
        let styleURL = folder.appendingPathComponent("style.json")
        let path = styleURL.path
        let json = try StyleFolderFile.json(styleURL, maxBytes: Self.maxStyleBytes, kind: .style)
        guard json.objectMembers != nil else {
            throw .invalidStyle(path: path, reason: "not a JSON object")
        }
        guard json["version"]?.intValue == 8 else {
            throw .invalidStyle(path: path, reason: "\"version\" must be 8 (MapLibre style spec)")
        }
        name = json["name"]?.stringValue
        guard let layerList = json["layers"]?.arrayValue else {
            throw .invalidStyle(path: path, reason: "\"layers\" must be an array")
        }
        var layers: [StyleLayer] = []
        for (i, l) in layerList.enumerated() {
            do throws(ExpressionError) {
                layers.append(try StyleLayer(l, index: i))
            } catch {
                throw .invalidStyle(path: path, reason: "\(error.path): \(error.reason)")
            }
        }
        self.layers = layers
        background = layers.first { $0.type == "background" }.flatMap { l in
            (try? l.paint["background-color"]?.evaluate(
                ExpressionContext(properties: [], geometryType: "Point", zoom: 0, id: nil)))
                .flatMap(ClientExpression.color)
        }
        var images: [String: SpriteImageSet] = [:]
        if let sprite = json["sprite"] {
            guard sprite.stringValue != nil else {
                throw .invalidStyle(
                    path: path, reason: "\"sprite\" must be one URL (arrays of sprites are not read)")
            }
            var sheets = [try SpriteSheetFile(base: folder.appendingPathComponent("sprite"))]
            let hiDPI = folder.appendingPathComponent("sprite@2x")
            if FileManager.default.fileExists(atPath: hiDPI.appendingPathExtension("json").path) {
                sheets.append(try SpriteSheetFile(base: hiDPI))
            }
            for sheet in sheets {
                for (name, image) in sheet.images {
                    images[name, default: SpriteImageSet(name: name, images: [])].images.append(image)
                }
            }
            for key in images.keys { images[key]?.images.sort { $0.pixelRatio < $1.pixelRatio } }
        }
        self.images = images
    }

    /// The look of a feature of package layer (MVT `source-layer`) `layer` with these tile properties — `class`
    /// and any `kp:` match flags included — and geometry, at display zoom `zoom` (MapLibre's zoom: 512-pixel tiles).
    public func look(
        layer: String, properties: [(key: String, value: FeatureValue)], geometry: LookGeometry,
        zoom: Double,
        id: UInt64? = nil
    ) -> ClientLook {
        let context = ExpressionContext(
            properties: properties, geometryType: geometry.typeName, zoom: zoom, id: id)
        var drawn: [DrawnLayer] = []
        for l in layers
        where l.sourceLayer == layer && l.isVisible(atZoom: zoom) && l.draws(geometry.family) {
            if let f = l.filter {
                guard (try? f.evaluate(context)) == .bool(true) else { continue }
            }
            drawn += l.looks(context, family: geometry.family, images: images).map {
                DrawnLayer(id: l.id, look: $0)
            }
        }
        return ClientLook(layers: drawn)
    }

    /// The look of a queried feature at display zoom `zoom`. Its label, for a polygon layer `L` that has a label
    /// layer, comes from the feature of `L_labels` with the same id (query both layers).
    public func look(for feature: MapFeature, zoom: Double) -> ClientLook {
        look(
            layer: feature.layer, properties: feature.properties,
            geometry: LookGeometry(feature.geometry), zoom: zoom,
            id: feature.id)
    }
}

/// The geometry of a feature as a style sees it.
public enum LookGeometry: Sendable, Hashable {
    /// A point (`multi`: more than one).
    case point(multi: Bool)
    /// A line.
    case line(multi: Bool)
    /// A polygon.
    case polygon(multi: Bool)

    /// The geometry of a queried feature.
    public init(_ g: FeatureGeometry) {
        switch g {
        case .points(let p): self = .point(multi: p.count > 1)
        case .lines(let l): self = .line(multi: l.count > 1)
        case .polygons(let p): self = .polygon(multi: p.count > 1)
        }
    }

    var family: GeometryFamilyKind {
        switch self {
        case .point: .point
        case .line: .line
        case .polygon: .polygon
        }
    }

    /// MapLibre's `geometry-type`.
    var typeName: String {
        switch self {
        case .point(let m): m ? "MultiPoint" : "Point"
        case .line(let m): m ? "MultiLineString" : "LineString"
        case .polygon(let m): m ? "MultiPolygon" : "Polygon"
        }
    }
}

enum GeometryFamilyKind { case point, line, polygon }
