/// Where a feature came from, for diagnostics: a file name (not an absolute path) and a 1-based record number.
public struct Provenance: Sendable, Hashable, Codable {
    public var source: String
    public var record: Int
    public var offset: Int?

    /// Creates a provenance.
    public init(source: String, record: Int, offset: Int? = nil) {
        self.source = source
        self.record = record
        self.offset = offset
    }
}

/// One map feature: optional id, geometry, ordered properties and provenance.
public struct Feature: Sendable, Hashable {
    public var id: UInt64?
    public var geometry: Geometry
    public var properties: Properties
    public var provenance: Provenance

    /// Creates a feature.
    public init(id: UInt64? = nil, geometry: Geometry, properties: Properties = Properties(), provenance: Provenance) {
        self.id = id
        self.geometry = geometry
        self.properties = properties
        self.provenance = provenance
    }
}

/// A pull-based stream of features with a schema known before the first feature.
public protocol FeatureSource {
    /// The layer's schema.
    var schema: LayerSchema { get }
    /// The next feature, nil at the end. Bad records are reported to diagnostics and skipped, not thrown;
    /// a throw means the whole source cannot go on.
    mutating func next() throws -> Feature?
}
