import KartpackCore
public import Styling
import KartpackJSON
public import TileArchive

/// What a package's metadata tells a client style: its layers (with geometry and classes), zoom range, name and
/// center. Read from PMTiles JSON metadata or the MBTiles `metadata` table (`json` row plus plain rows).
///
/// The contract with `kartpack convert`: the metadata has `vector_layers` (`id`, `fields`, `minzoom`, `maxzoom`)
/// and `kartpack`, a JSON **string** holding `{"layers": {LAYER: {"records", "written", "rejected", "repaired",
/// "geometry": "point"|"line"|"polygon", "classes": {CLASS: featureCount}, "classes_by_zoom": {"Z": {CLASS:
/// featureCount}}}}}` (`classes_by_zoom` optional) (an object instead of a string is
/// accepted too). Missing parts are tolerated and reported in `warnings`.
public struct PackageInfo: Sendable {
    /// The package path as given.
    public var path: String
    /// The container format.
    public var format: ArchiveFormat
    /// The tileset name.
    public var name: String?
    /// The attribution text (HTML allowed, as TileJSON says).
    public var attribution: String?
    /// The data bounds in degrees (west, south, east, north), when the metadata says.
    public var bounds: (west: Double, south: Double, east: Double, north: Double)?
    /// The lowest zoom in the package.
    public var minZoom: Int?
    /// The highest zoom in the package.
    public var maxZoom: Int?
    /// The default view: longitude, latitude (degrees) and zoom.
    public var center: (longitude: Double, latitude: Double, zoom: Int)?
    /// The layers in `vector_layers` order (then layers only the run summary names, sorted by name).
    public var layers: [PackageLayerSummary]
    /// Problems with the metadata that were worked around.
    public var warnings: [String]

    /// Builds the description from a metadata object (PMTiles: the whole JSON metadata; MBTiles: the `json` row's
    /// object with the plain rows added as string members).
    public init(metadata: JSONValue, path: String, format: ArchiveFormat) {
        self.path = path
        self.format = format
        warnings = []
        name = metadata["name"]?.stringValue
        attribution = metadata["attribution"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        bounds = nil
        var box: [Double?] = []
        if let text = metadata["bounds"]?.stringValue {
            box = text.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
        } else if let a = metadata["bounds"]?.arrayValue {
            box = a.map(\.doubleValue)
        }
        if box.count == 4, let w = box[0], let s = box[1], let e = box[2], let n = box[3], w.isFinite, s.isFinite,
            e.isFinite, n.isFinite, w >= -180, e <= 180, s >= -90, n <= 90, w <= e, s <= n
        {
            bounds = (w, s, e, n)
        }
        minZoom = PackageInfo.integer(metadata["minzoom"])
        maxZoom = PackageInfo.integer(metadata["maxzoom"])
        center = nil
        if let text = metadata["center"]?.stringValue {
            let parts = text.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
            if parts.count == 3, let lon = parts[0], let lat = parts[1], let z = parts[2], lon.isFinite, lat.isFinite,
                z.isFinite, abs(lon) <= 180, abs(lat) <= 90, z >= 0, z <= 30
            {
                center = (lon, lat, Int(z))
            }
        } else if let a = metadata["center"]?.arrayValue, a.count == 3, let lon = a[0].doubleValue,
            let lat = a[1].doubleValue, let z = a[2].intValue, abs(lon) <= 180, abs(lat) <= 90, z >= 0, z <= 30
        {
            center = (lon, lat, Int(z))
        }

        var layers: [PackageLayerSummary] = []
        if let list = metadata["vector_layers"]?.arrayValue {
            for entry in list {
                guard let id = entry["id"]?.stringValue, !id.isEmpty else {
                    warnings.append("a vector_layers entry has no id")
                    continue
                }
                guard !layers.contains(where: { $0.id == id }) else {
                    warnings.append("vector layer \(id) is listed twice")
                    continue
                }
                let members = entry["fields"]?.objectMembers ?? []
                var layer = PackageLayerSummary(
                    id: id, fields: members.map(\.key), minZoom: PackageInfo.integer(entry["minzoom"]),
                    maxZoom: PackageInfo.integer(entry["maxzoom"]))
                for (name, type) in members {
                    if let t = type.stringValue, let kind = ClientFieldKind(tileJSONType: t) {
                        layer.fieldKinds[name] = kind
                    }
                }
                layers.append(layer)
            }
        } else {
            warnings.append("the metadata has no vector_layers")
        }

        var summary: JSONValue?
        switch metadata["kartpack"] {
        case .string(let text)?:
            do throws(StyleJSONParseError) {
                summary = try StyleJSON.parse(text)
            } catch {
                warnings.append("the kartpack metadata is not JSON: \(error)")
            }
        case .object(let members)?:
            summary = .object(members)
        case nil:
            warnings.append("the metadata has no kartpack run summary (geometry and classes unknown)")
        default:
            warnings.append("the kartpack metadata is neither a JSON string nor an object")
        }
        if let perLayer = summary?["layers"]?.objectMembers {
            var extra: [PackageLayerSummary] = []
            // Matching by id is quadratic: a hostile summary of tens of thousands of layers is read in part.
            if perLayer.count > PackageReader.maxLayers {
                warnings.append(
                    "the kartpack run summary lists \(perLayer.count) layers; the first "
                        + "\(PackageReader.maxLayers) are read")
            }
            for (id, info) in perLayer.prefix(PackageReader.maxLayers) {
                var layer: PackageLayerSummary
                let index = layers.firstIndex { $0.id == id }
                if let index { layer = layers[index] } else { layer = PackageLayerSummary(id: id) }
                if let g = info["geometry"]?.stringValue {
                    if let family = GeometryFamily(rawValue: g) {
                        layer.geometry = family
                    } else {
                        warnings.append("layer \(id): unknown geometry \(g)")
                    }
                }
                if let classes = info["classes"]?.objectMembers {
                    layer.classes = classes.compactMap { name, count in
                        guard !name.isEmpty else { return nil }
                        return PackageLayerSummary.ClassCount(name: name, count: Int(count.intValue ?? 0))
                    }
                }
                if let byZoom = info["classes_by_zoom"]?.objectMembers {
                    var out: [Int: [PackageLayerSummary.ClassCount]] = [:]
                    for (zoomText, classes) in byZoom {
                        guard let z = Int(zoomText), (0...30).contains(z), let members = classes.objectMembers else {
                            warnings.append("layer \(id): bad classes_by_zoom entry \(zoomText)")
                            continue
                        }
                        out[z] = members.compactMap { name, count in
                            name.isEmpty
                                ? nil : PackageLayerSummary.ClassCount(name: name, count: Int(count.intValue ?? 0))
                        }
                    }
                    layer.classesByZoom = out
                }
                if let index {
                    layers[index] = layer
                } else if !extra.contains(where: { $0.id == id }) {
                    extra.append(layer)
                }
            }
            layers += extra.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        }
        self.layers = layers
    }

    private static func integer(_ v: JSONValue?) -> Int? {
        guard let v else { return nil }
        if let i = v.intValue, i >= 0, i <= 30 { return Int(i) }
        if let s = v.stringValue, let i = Int(s), i >= 0, i <= 30 { return i }
        return nil
    }

    /// The layer with this exact id.
    public func layer(_ id: String) -> PackageLayerSummary? { layers.first { $0.id == id } }

    /// Opens a package and reads its metadata.
    /// - Throws: `.cannotOpenPackage` (missing, unreadable) or `.badPackage` (not an archive, broken metadata).
    public static func read(path: String) throws(MapStyleError) -> PackageInfo {
        let reader = try PackageReader(path: path)
        return try reader.info()
    }
}
