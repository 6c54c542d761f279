/// A typed attribute value, as the vector tile stores it.
public enum FeatureValue: Sendable, Hashable, CustomStringConvertible {
    /// Text.
    case string(String)
    /// A signed integer (`int_value`, `sint_value`).
    case int(Int64)
    /// An unsigned integer (`uint_value`).
    case uint(UInt64)
    /// A floating-point number (`float_value`, `double_value`).
    case double(Double)
    /// A boolean.
    case bool(Bool)

    /// The value as a number when it is numeric.
    public var numericValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .uint(let v): Double(v)
        case .double(let v): v
        case .string, .bool: nil
        }
    }

    /// The value as text when it is a string.
    public var stringValue: String? {
        if case .string(let s) = self { s } else { nil }
    }

    /// The value as plain text (`true`, `12`, `0.5`, the string itself).
    public var description: String {
        switch self {
        case .string(let s): s
        case .int(let v): String(v)
        case .uint(let v): String(v)
        case .double(let v): String(v)
        case .bool(let v): String(v)
        }
    }
}

/// A polygon: one exterior ring and its holes, each ring closed (first position repeated at the end), the
/// exterior counter-clockwise and holes clockwise as GeoJSON (RFC 7946) has them.
public struct GeoPolygon: Sendable, Hashable {
    /// The outer boundary.
    public var exterior: [GeoCoordinate]
    /// The holes.
    public var holes: [[GeoCoordinate]]

    /// Creates a polygon.
    public init(exterior: [GeoCoordinate], holes: [[GeoCoordinate]] = []) {
        self.exterior = exterior
        self.holes = holes
    }
}

/// A feature's geometry in WGS 84.
public enum FeatureGeometry: Sendable, Hashable {
    /// One or more points.
    case points([GeoCoordinate])
    /// One or more lines (each at least two positions).
    case lines([[GeoCoordinate]])
    /// One or more polygons with holes.
    case polygons([GeoPolygon])

    /// Every position of the geometry, in order.
    public var coordinates: [GeoCoordinate] {
        switch self {
        case .points(let p): p
        case .lines(let l): l.flatMap { $0 }
        case .polygons(let polys): polys.flatMap { $0.exterior + $0.holes.flatMap { $0 } }
        }
    }

    /// The smallest box holding every position, or nil when there is none.
    public var bounds: GeoRegion? {
        let c = coordinates
        guard let first = c.first else { return nil }
        var r = GeoRegion(west: first.longitude, south: first.latitude, east: first.longitude, north: first.latitude)
        for p in c.dropFirst() {
            r.west = min(r.west, p.longitude)
            r.east = max(r.east, p.longitude)
            r.south = min(r.south, p.latitude)
            r.north = max(r.north, p.latitude)
        }
        return r
    }
}

/// One decoded feature of a package: its layer, id, class, typed attributes and WGS 84 geometry.
public struct MapFeature: Sendable, Hashable {
    /// The layer it belongs to.
    public var layer: String
    /// The feature id from the tiles (kartpack: record number or `--id-field`), nil when the tile has none.
    public var id: UInt64?
    /// The attributes in tile order (kartpack's `class` attribute included).
    public var properties: [(key: String, value: FeatureValue)]
    /// The geometry: clipped to the queried region, or as the covering tiles hold it (`GeometryMode`).
    public var geometry: FeatureGeometry

    /// Creates a feature.
    public init(
        layer: String, id: UInt64?, properties: [(key: String, value: FeatureValue)], geometry: FeatureGeometry
    ) {
        self.layer = layer
        self.id = id
        self.properties = properties
        self.geometry = geometry
    }

    /// The value of an attribute, or nil.
    public subscript(key: String) -> FeatureValue? {
        properties.first { $0.key == key }?.value
    }

    /// The style class kartpack wrote (`class` attribute), or nil.
    public var featureClass: String? { self["class"]?.stringValue }

    /// Equality of layer, id, attributes (in order) and geometry.
    public static func == (a: MapFeature, b: MapFeature) -> Bool {
        a.layer == b.layer && a.id == b.id && a.geometry == b.geometry && a.properties.count == b.properties.count
            && zip(a.properties, b.properties).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    /// Hashes layer, id and geometry.
    public func hash(into h: inout Hasher) {
        h.combine(layer)
        h.combine(id)
        h.combine(geometry)
    }
}
