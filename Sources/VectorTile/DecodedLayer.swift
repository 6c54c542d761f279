import KartpackCore

/// One decoded layer.
public struct DecodedLayer: Sendable, Hashable {
    /// The layer name.
    public var name: String
    /// The declared version (1 or 2; 1 when the field was missing).
    public var version: Int
    /// The declared extent (4096 when the field was missing).
    public var extent: Int
    /// The features in file order.
    public var features: [DecodedFeature]
    /// The key table.
    public var keys: [String]
    /// The value table.
    public var values: [PropertyValue]

    /// Creates a decoded layer.
    public init(
        name: String, version: Int, extent: Int, features: [DecodedFeature], keys: [String], values: [PropertyValue]
    ) {
        self.name = name
        self.version = version
        self.extent = extent
        self.features = features
        self.keys = keys
        self.values = values
    }
}
