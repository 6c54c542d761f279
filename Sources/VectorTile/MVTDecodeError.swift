import KartpackCore

/// Why a tile failed MVT 2.1 validation. Carries the layer and feature where it happened.
public struct MVTDecodeError: Error, Sendable, Hashable, KartpackError {
    /// The rule that was broken.
    public enum Kind: Sendable, Hashable {
        /// The protobuf structure is broken (truncated, bad varint, bad wire type…).
        case malformed(ProtobufError)
        /// A layer without a `name`.
        case missingLayerName
        /// Two layers with the same name.
        case duplicateLayerName
        /// A layer version other than 1 or 2.
        case unsupportedVersion(UInt64)
        /// An extent of 0 or above 2^32 − 1.
        case invalidExtent(UInt64)
        /// A `Value` with no field or several fields set.
        case invalidValue
        /// A key, value or layer name that is not valid UTF-8.
        case invalidUTF8
        /// A feature with an odd number of tags.
        case oddTagCount
        /// A tag key index ≥ the number of keys.
        case keyIndexOutOfRange(UInt32)
        /// A tag value index ≥ the number of values.
        case valueIndexOutOfRange(UInt32)
        /// A key index used twice in one feature.
        case duplicateKeyInFeature(UInt32)
        /// A geometry type other than 0…3.
        case invalidGeometryType(UInt64)
        /// A POINT, LINESTRING or POLYGON feature without geometry commands.
        case missingGeometry
        /// A command id other than MoveTo, LineTo, ClosePath.
        case unknownCommand(UInt32)
        /// A command in a place the geometry type does not allow, or with a bad count.
        case unexpectedCommand(MVTCommand, count: Int)
        /// The stream ended inside a command's parameters or before a required command.
        case truncatedGeometry
        /// A LineTo with dx = dy = 0 (forbidden in version 2).
        case zeroLengthLineTo
        /// The cursor left the 32-bit range.
        case coordinateOverflow
        /// A polygon whose first (non-degenerate) ring has negative area (version 2: exteriors are positive).
        case firstRingNotExterior
        /// A cap in `MVTDecoder.Limits` was hit.
        case limitExceeded(String)
    }

    /// The rule that was broken.
    public var kind: Kind
    /// The layer name, when known.
    public var layer: String?
    /// The 0-based layer index.
    public var layerIndex: Int?
    /// The 0-based feature index in the layer.
    public var feature: Int?

    /// Creates an error.
    public init(_ kind: Kind, layer: String? = nil, layerIndex: Int? = nil, feature: Int? = nil) {
        self.kind = kind
        self.layer = layer
        self.layerIndex = layerIndex
        self.feature = feature
    }

    /// A bad tile is a data error.
    public var exitCode: ExitCode { .dataError }

    /// A stable snake_case code for diagnostics.
    public var code: String {
        switch kind {
        case .malformed: "mvt_malformed_protobuf"
        case .missingLayerName: "mvt_missing_layer_name"
        case .duplicateLayerName: "mvt_duplicate_layer_name"
        case .unsupportedVersion: "mvt_unsupported_version"
        case .invalidExtent: "mvt_invalid_extent"
        case .invalidValue: "mvt_invalid_value"
        case .invalidUTF8: "mvt_invalid_utf8"
        case .oddTagCount: "mvt_odd_tag_count"
        case .keyIndexOutOfRange: "mvt_key_index_out_of_range"
        case .valueIndexOutOfRange: "mvt_value_index_out_of_range"
        case .duplicateKeyInFeature: "mvt_duplicate_key_in_feature"
        case .invalidGeometryType: "mvt_invalid_geometry_type"
        case .missingGeometry: "mvt_missing_geometry"
        case .unknownCommand: "mvt_unknown_command"
        case .unexpectedCommand: "mvt_unexpected_command"
        case .truncatedGeometry: "mvt_truncated_geometry"
        case .zeroLengthLineTo: "mvt_zero_length_lineto"
        case .coordinateOverflow: "mvt_coordinate_overflow"
        case .firstRingNotExterior: "mvt_wrong_winding"
        case .limitExceeded: "mvt_limit_exceeded"
        }
    }

    /// `layer "roads" (#0) feature 3: mvt_wrong_winding (detail)`.
    public var description: String {
        var s = ""
        if let layer { s += "layer \"\(layer)\" " }
        if let layerIndex { s += "(#\(layerIndex)) " }
        if let feature { s += "feature \(feature) " }
        if !s.isEmpty { s = String(s.dropLast()) + ": " }
        s += code
        switch kind {
        case .malformed(let e): s += " (\(e.description))"
        case .unsupportedVersion(let v): s += " (version \(v))"
        case .invalidExtent(let v): s += " (extent \(v))"
        case .keyIndexOutOfRange(let i), .valueIndexOutOfRange(let i), .duplicateKeyInFeature(let i):
            s += " (index \(i))"
        case .invalidGeometryType(let t): s += " (type \(t))"
        case .unknownCommand(let c): s += " (command id \(c))"
        case .unexpectedCommand(let c, let n): s += " (\(c) count \(n))"
        case .limitExceeded(let what): s += " (\(what))"
        default: break
        }
        return s
    }
}
