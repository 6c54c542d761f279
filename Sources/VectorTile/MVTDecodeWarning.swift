import KartpackCore

/// A tolerated deviation found while decoding.
public struct MVTDecodeWarning: Sendable, Hashable, CustomStringConvertible {
    /// What was tolerated.
    public enum Kind: Sendable, Hashable {
        /// The layer declares version 1 (accepted; winding is then read relative to the first ring).
        case versionOne
        /// The layer has no version field (proto default 1).
        case missingVersion
        /// The layer has no features.
        case emptyLayer
        /// A feature of type UNKNOWN: its geometry was not interpreted.
        case unknownGeometryType
        /// A polygon ring with zero area was skipped.
        case zeroAreaRing
        /// A ring repeated its first point before ClosePath (the repeat was dropped).
        case closingPointRepeated

        /// The reason code (docs/diagnostics.md, *Tile decoding*).
        public var code: ReasonCode {
            switch self {
            case .versionOne: .version1Layer
            case .missingVersion: .missingVersion
            case .emptyLayer: .emptyLayer
            case .unknownGeometryType: .unknownGeometryType
            case .zeroAreaRing: .zeroAreaRing
            case .closingPointRepeated: .closingPointRepeated
            }
        }
    }

    /// What was tolerated.
    public var kind: Kind
    /// The layer name.
    public var layer: String
    /// The 0-based feature index in the layer, when it concerns one feature.
    public var feature: Int?

    /// Creates a warning.
    public init(_ kind: Kind, layer: String, feature: Int? = nil) {
        self.kind = kind
        self.layer = layer
        self.feature = feature
    }

    /// `layer "name" feature N: kind`.
    public var description: String {
        "layer \"\(layer)\"" + (feature.map { " feature \($0)" } ?? "") + ": " + kind.code.rawValue
    }
}
