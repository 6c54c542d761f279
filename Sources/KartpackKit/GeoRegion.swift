/// A WGS 84 position: longitude and latitude in degrees.
public struct GeoCoordinate: Sendable, Hashable {
    /// Longitude in degrees, east positive.
    public var longitude: Double
    /// Latitude in degrees, north positive.
    public var latitude: Double

    /// Creates a position.
    public init(longitude: Double, latitude: Double) {
        self.longitude = longitude
        self.latitude = latitude
    }
}

/// A longitude/latitude box in WGS 84 degrees (west ≤ east: a box across the antimeridian is two queries).
public struct GeoRegion: Sendable, Hashable, CustomStringConvertible {
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

    /// The whole Web Mercator world (latitudes beyond ±85.0511° are not in any tile).
    public static let world = GeoRegion(west: -180, south: -85.0511287798066, east: 180, north: 85.0511287798066)

    /// True when all four values are finite, within ±180/±90 and west ≤ east, south ≤ north.
    public var isValid: Bool {
        [west, south, east, north].allSatisfy(\.isFinite) && west >= -180 && east <= 180 && south >= -90
            && north <= 90 && west <= east && south <= north
    }

    /// True when `c` lies inside or on the edge of the box.
    public func contains(_ c: GeoCoordinate) -> Bool {
        c.longitude >= west && c.longitude <= east && c.latitude >= south && c.latitude <= north
    }

    /// True when `other` lies entirely inside this box.
    public func contains(_ other: GeoRegion) -> Bool {
        other.west >= west && other.east <= east && other.south >= south && other.north <= north
    }

    /// `W,S,E,N`.
    public var description: String { "\(west),\(south),\(east),\(north)" }
}
