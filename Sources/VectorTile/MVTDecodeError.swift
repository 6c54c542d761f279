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
    public var code: ReasonCode {
        switch kind {
        case .malformed: .mvtMalformedProtobuf
        case .missingLayerName: .mvtMissingLayerName
        case .duplicateLayerName: .mvtDuplicateLayerName
        case .unsupportedVersion: .mvtUnsupportedVersion
        case .invalidExtent: .mvtInvalidExtent
        case .invalidValue: .mvtInvalidValue
        case .invalidUTF8: .mvtInvalidUtf8
        case .oddTagCount: .mvtOddTagCount
        case .keyIndexOutOfRange: .mvtKeyIndexOutOfRange
        case .valueIndexOutOfRange: .mvtValueIndexOutOfRange
        case .duplicateKeyInFeature: .mvtDuplicateKeyInFeature
        case .invalidGeometryType: .mvtInvalidGeometryType
        case .missingGeometry: .mvtMissingGeometry
        case .unknownCommand: .mvtUnknownCommand
        case .unexpectedCommand: .mvtUnexpectedCommand
        case .truncatedGeometry: .mvtTruncatedGeometry
        case .zeroLengthLineTo: .mvtZeroLengthLineto
        case .coordinateOverflow: .mvtCoordinateOverflow
        case .firstRingNotExterior: .mvtWrongWinding
        case .limitExceeded: .mvtLimitExceeded
        }
    }

    /// `layer "roads" (#0) feature 3: mvt_wrong_winding (detail)`.
    public var description: String {
        var s = ""
        if let layer { s += "layer \"\(layer)\" " }
        if let layerIndex { s += "(#\(layerIndex)) " }
        if let feature { s += "feature \(feature) " }
        if !s.isEmpty { s = String(s.dropLast()) + ": " }
        s += code.rawValue
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
