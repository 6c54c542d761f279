public import KartpackCore
import KartpackJSON

/// A longitude/latitude box in WGS84 degrees.
public struct GeoBounds: Sendable, Hashable {
    /// Western longitude.
    public var west: Double
    /// Southern latitude.
    public var south: Double
    /// Eastern longitude.
    public var east: Double
    /// Northern latitude.
    public var north: Double

    /// Creates a box.
    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// True when all four values are finite, within ±180/±90 and not inverted.
    public var isValid: Bool {
        [west, south, east, north].allSatisfy(\.isFinite) && west >= -180 && east <= 180 && south >= -90
            && north <= 90 && west <= east && south <= north
    }
}

/// The default view of a tileset: a longitude, a latitude and a zoom.
public struct GeoCenter: Sendable, Hashable {
    /// Longitude in degrees.
    public var longitude: Double
    /// Latitude in degrees.
    public var latitude: Double
    /// Zoom level.
    public var zoom: Int

    /// Creates a center.
    public init(longitude: Double, latitude: Double, zoom: Int) {
        self.longitude = longitude
        self.latitude = latitude
        self.zoom = zoom
    }
}

/// A TileJSON `vector_layers` field type.
public enum VectorFieldType: String, Sendable, Hashable {
    /// `"Number"`.
    case number = "Number"
    /// `"String"`.
    case string = "String"
    /// `"Boolean"`.
    case boolean = "Boolean"

    /// The TileJSON type of a schema field type (`FieldType.tileJSONType`).
    public init(_ type: FieldType) {
        switch type {
        case .integer, .double: self = .number
        case .logical: self = .boolean
        case .string, .date: self = .string
        }
    }
}

/// One attribute of a vector layer, as listed in `vector_layers`.
public struct VectorLayerField: Sendable, Hashable {
    /// The attribute key in the MVT layer.
    public var name: String
    /// Its TileJSON type.
    public var type: VectorFieldType

    /// Creates a field.
    public init(name: String, type: VectorFieldType) {
        self.name = name
        self.type = type
    }
}

/// One entry of TileJSON 3.0 `vector_layers`.
public struct VectorLayerInfo: Sendable, Hashable {
    /// The MVT layer name.
    public var id: String
    /// Attributes in a fixed order (written in this order).
    public var fields: [VectorLayerField]
    /// The lowest zoom holding the layer, if known.
    public var minZoom: Int?
    /// The highest zoom holding the layer, if known.
    public var maxZoom: Int?
    /// A human description.
    public var description: String?

    /// Creates a layer entry.
    public init(
        id: String, fields: [VectorLayerField], minZoom: Int? = nil, maxZoom: Int? = nil, description: String? = nil
    ) {
        self.id = id
        self.fields = fields
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.description = description
    }
}

/// What an archive says about itself: TileJSON-style keys written into PMTiles metadata JSON and MBTiles
/// `metadata` rows. Unset zooms, bounds and center are derived from the tiles written.
public struct ArchiveMetadata: Sendable {
    /// Human-readable tileset name (required by MBTiles).
    public var name: String
    /// Free-text description.
    public var description: String?
    /// Attribution (HTML allowed by the specs).
    public var attribution: String?
    /// Tileset version (PMTiles: a semver string; MBTiles: a revision number).
    public var version: String?
    /// `overlay` or `baselayer`.
    public var type: String
    /// Data bounds in degrees; derived from the tiles when nil.
    public var bounds: GeoBounds?
    /// Default view; derived from the bounds and the minimum zoom when nil.
    public var center: GeoCenter?
    /// Minimum zoom; the lowest zoom written when nil.
    public var minZoom: Int?
    /// Maximum zoom; the highest zoom written when nil.
    public var maxZoom: Int?
    /// The `vector_layers` list, in order.
    public var vectorLayers: [VectorLayerInfo]
    /// The program that wrote the archive, e.g. `kartpack 0.1.0`.
    public var generator: String?
    /// Further keys (e.g. a run summary), written after sorting by key. A key that collides with a standard
    /// key is an error.
    public var extra: [(key: String, value: JSONValue)]

    /// Creates metadata.
    public init(
        name: String, description: String? = nil, attribution: String? = nil, version: String? = nil,
        type: String = "overlay", bounds: GeoBounds? = nil, center: GeoCenter? = nil, minZoom: Int? = nil,
        maxZoom: Int? = nil, vectorLayers: [VectorLayerInfo] = [], generator: String? = nil,
        extra: [(key: String, value: JSONValue)] = []
    ) {
        self.name = name
        self.description = description
        self.attribution = attribution
        self.version = version
        self.type = type
        self.bounds = bounds
        self.center = center
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.vectorLayers = vectorLayers
        self.generator = generator
        self.extra = extra
    }
}

extension ArchiveMetadata {
    /// Checks the values a writer relies on; `tileZooms` is the zoom range actually written.
    package func validated(tileZooms: ClosedRange<Int>) throws(TileArchiveError) -> ResolvedMetadata {
        let minZoom = self.minZoom ?? tileZooms.lowerBound
        let maxZoom = self.maxZoom ?? tileZooms.upperBound
        guard (0...TileCoordinate.maxZoom).contains(minZoom), (0...TileCoordinate.maxZoom).contains(maxZoom),
            minZoom <= maxZoom
        else { throw .invalidMetadata("zoom range \(minZoom)...\(maxZoom)") }
        if let bounds, !bounds.isValid { throw .invalidMetadata("bounds \(bounds)") }
        if let center {
            guard center.longitude.isFinite, center.latitude.isFinite, abs(center.longitude) <= 180,
                abs(center.latitude) <= 90, (0...TileCoordinate.maxZoom).contains(center.zoom)
            else { throw .invalidMetadata("center \(center)") }
        }
        var layerIDs = Set<String>()
        for layer in vectorLayers {
            guard layerIDs.insert(layer.id).inserted else {
                throw .invalidMetadata("duplicate vector layer \(layer.id)")
            }
            var names = Set<String>()
            for f in layer.fields where !names.insert(f.name).inserted {
                throw .invalidMetadata("duplicate field \(f.name) in layer \(layer.id)")
            }
            let lo = layer.minZoom ?? minZoom
            let hi = layer.maxZoom ?? maxZoom
            guard lo <= hi, lo >= minZoom, hi <= maxZoom else {
                throw .invalidMetadata("layer \(layer.id) zooms \(lo)...\(hi) are outside \(minZoom)...\(maxZoom)")
            }
        }
        var extraKeys = Set<String>()
        for (key, _) in extra where !extraKeys.insert(key).inserted {
            throw .invalidMetadata("duplicate extra key \(key)")
        }
        return ResolvedMetadata(source: self, minZoom: minZoom, maxZoom: maxZoom)
    }

    /// `vector_layers` as JSON: each layer's keys sorted, fields in their given order.
    package var vectorLayersJSON: JSONValue {
        .array(
            vectorLayers.map { layer in
                var members: [(key: String, value: JSONValue)] = []
                if let d = layer.description { members.append(("description", .string(d))) }
                members.append(("fields", .object(layer.fields.map { ($0.name, .string($0.type.rawValue)) })))
                members.append(("id", .string(layer.id)))
                if let z = layer.maxZoom { members.append(("maxzoom", .int(Int64(z)))) }
                if let z = layer.minZoom { members.append(("minzoom", .int(Int64(z)))) }
                return .object(members)
            })
    }

    /// Merges standard members with `extra`, sorted by key; a collision is an error.
    /// Compact JSON text of a metadata value; a non-finite number is invalid metadata.
    package static func text(_ value: JSONValue) throws(TileArchiveError) -> String {
        do throws(JSONWriteError) {
            return try value.serialized()
        } catch {
            throw .invalidMetadata(error.description)
        }
    }

    package static func sortedObject(
        _ standard: [(key: String, value: JSONValue)], extra: [(key: String, value: JSONValue)]
    ) throws(TileArchiveError) -> JSONValue {
        let standardKeys = Set(standard.map(\.key))
        for (key, _) in extra where standardKeys.contains(key) {
            throw .invalidMetadata("extra key \(key) collides with a standard key")
        }
        return .object((standard + extra).sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
    }
}

/// Metadata after validation, with the zoom range settled.
package struct ResolvedMetadata {
    package var source: ArchiveMetadata
    package var minZoom: Int
    package var maxZoom: Int

    /// The bounds to write: the given ones, else those of `coverage`.
    package func bounds(_ coverage: TileCoverage) -> GeoBounds {
        source.bounds ?? coverage.geoBounds
    }

    /// The center to write: the given one, else the middle of the bounds at the minimum zoom.
    package func center(_ coverage: TileCoverage) -> GeoCenter {
        if let c = source.center { return c }
        let b = bounds(coverage)
        return GeoCenter(
            longitude: TileCoverage.rounded7((b.west + b.east) / 2),
            latitude: TileCoverage.rounded7((b.south + b.north) / 2),
            zoom: minZoom)
    }
}
