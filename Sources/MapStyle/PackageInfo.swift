import KartpackCore
import Styling
import KartpackJSON
public import TileArchive

/// What a package's metadata tells a client style: its layers (with geometry and classes), zoom range, name and
/// center. Read from PMTiles JSON metadata or the MBTiles `metadata` table (`json` row plus plain rows).
///
/// The contract with `kartpack convert`: the metadata has `vector_layers` (`id`, `fields`, `minzoom`, `maxzoom`)
/// and `kartpack`, a JSON **string** holding `{"layers": {LAYER: {"records", "written", "rejected", "repaired",
/// "geometry": "point"|"line"|"polygon", "classes": {CLASS: featureCount}, "classes_by_zoom": {"Z": {CLASS:
/// featureCount}}}}}` (`classes_by_zoom` optional) (an object instead of a string is
/// accepted too). Read by `PackageMetadata` (PMTiles), the one reader of package metadata; missing parts are
/// tolerated and reported in `warnings`.
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
        let parsed = PackageMetadata(parsing: metadata)
        self.path = path
        self.format = format
        warnings = parsed.warnings
        name = parsed.name
        attribution = parsed.attribution
        bounds = parsed.bounds.map { ($0.west, $0.south, $0.east, $0.north) }
        minZoom = parsed.minZoom
        maxZoom = parsed.maxZoom
        center = parsed.center.map { ($0.longitude, $0.latitude, $0.zoom) }
        var layers = parsed.layers.map { entry in
            var layer = PackageLayerSummary(
                id: entry.id, fields: entry.fields.map(\.name), minZoom: entry.minZoom, maxZoom: entry.maxZoom)
            for (name, type) in entry.fields {
                if let kind = ClientFieldKind(tileJSONType: type) { layer.fieldKinds[name] = kind }
            }
            return layer
        }
        var extra: [PackageLayerSummary] = []
        for run in parsed.runLayers {
            let index = layers.firstIndex { $0.id == run.id }
            var layer = index.map { layers[$0] } ?? PackageLayerSummary(id: run.id)
            if let g = run.geometry {
                if let family = GeometryFamily(rawValue: g) {
                    layer.geometry = family
                } else {
                    warnings.append("layer \(run.id): unknown geometry \(g)")
                }
            }
            func counts(_ c: [PackageMetadata.ClassCount]) -> [PackageLayerSummary.ClassCount] {
                c.map { PackageLayerSummary.ClassCount(name: $0.name, count: $0.features) }
            }
            if let classes = run.classes { layer.classes = counts(classes) }
            if let byZoom = run.classesByZoom { layer.classesByZoom = byZoom.mapValues(counts) }
            if let index { layers[index] = layer } else { extra.append(layer) }
        }
        self.layers = layers + extra.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
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
