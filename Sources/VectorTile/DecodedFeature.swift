import KartpackCore

/// One decoded feature.
public struct DecodedFeature: Sendable, Hashable {
    /// The id, nil when the field was absent.
    public var id: UInt64?
    /// The declared geometry type.
    public var type: MVTGeometryType
    /// The attributes, in tag order. Integers come back as `.uint` (`uint_value`) or `.int` (`int_value`,
    /// `sint_value`); `float_value` comes back as `.double`.
    public var properties: Properties
    /// The geometry in tile coordinates.
    public var geometry: DecodedGeometry

    /// Creates a decoded feature.
    public init(id: UInt64?, type: MVTGeometryType, properties: Properties, geometry: DecodedGeometry) {
        self.id = id
        self.type = type
        self.properties = properties
        self.geometry = geometry
    }
}
