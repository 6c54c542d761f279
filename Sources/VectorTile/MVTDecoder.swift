import GeometryAlgorithms
import KartpackCore

/// Decodes and validates an uncompressed MVT tile (gunzip first).
///
/// Every MUST of MVT 2.1 is checked and reported as an `MVTDecodeError`; SHOULD-level deviations and version 1
/// layers are accepted and listed as warnings. Any byte sequence is safe: nothing traps, memory stays linear
/// in the input size (no allocation is sized from a count read from the input), and the `Limits` cap layers,
/// features, vertices and table sizes.
public struct MVTDecoder: Sendable {
    /// Caps against hostile tiles.
    public struct Limits: Sendable, Hashable {
        /// Layers per tile.
        public var maxLayers = 1_000
        /// Features per tile (all layers).
        public var maxFeatures = 2_000_000
        /// Vertices per tile (all layers).
        public var maxVertices = 20_000_000
        /// Keys per layer.
        public var maxKeysPerLayer = 1_000_000
        /// Values per layer.
        public var maxValuesPerLayer = 1_000_000
        /// Warnings kept in `DecodedTile.warnings` (all are counted).
        public var maxWarnings = 100

        /// The default caps.
        public init() {}
    }

    /// The caps in force.
    public var limits: Limits

    /// Creates a decoder.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Decodes and validates `bytes`.
    public func decode(_ bytes: [UInt8]) throws(MVTDecodeError) -> DecodedTile {
        try walk(bytes, keep: true)
    }

    /// Validates `bytes` as `decode` does — every rule and limit, the same error for the same input — without
    /// building the decoded tile (no properties, point parts or value strings): the pre-publish check of every tile
    /// written. Returns how many warnings `decode` would count.
    @discardableResult
    public func validate(_ bytes: [UInt8]) throws(MVTDecodeError) -> Int {
        try walk(bytes, keep: false).warningCount
    }

    /// `decode` when `keep`, else `validate`: a tile whose layers hold no features and no values.
    private func walk(_ bytes: [UInt8], keep: Bool) throws(MVTDecodeError) -> DecodedTile {
        var state = State(limits: limits)
        var reader = ProtobufReader(bytes)
        var layers: [DecodedLayer] = []
        var names = Set<[UInt8]>()
        while !reader.isAtEnd {
            let offset = reader.position
            let (field, wire) = try pb { () throws(ProtobufError) in try reader.readTag() }
            guard field == 3 else {
                try pb { () throws(ProtobufError) in try reader.skip(wire) }
                continue
            }
            guard wire == .lengthDelimited else {
                throw MVTDecodeError(.malformed(.unexpectedWireType(field: 3, wireType: wire, offset: offset)))
            }
            let range = try pb { () throws(ProtobufError) in try reader.readLengthDelimited() }
            guard layers.count < limits.maxLayers else {
                throw MVTDecodeError(.limitExceeded("more than \(limits.maxLayers) layers"))
            }
            let index = layers.count
            let layer = try decodeLayer(reader.subreader(range), index: index, keep: keep, state: &state)
            guard names.insert(Array(layer.name.utf8)).inserted else {
                throw MVTDecodeError(.duplicateLayerName, layer: layer.name, layerIndex: index)
            }
            layers.append(layer)
        }
        return DecodedTile(layers: layers, warnings: state.warnings, warningCount: state.warningCount)
    }

    // MARK: - Layers

    struct State {
        let limits: Limits
        var features = 0
        var vertices = 0
        var warnings: [MVTDecodeWarning] = []
        var warningCount = 0

        mutating func warn(_ kind: MVTDecodeWarning.Kind, layer: String, feature: Int? = nil) {
            warningCount += 1
            if warnings.count < limits.maxWarnings {
                warnings.append(MVTDecodeWarning(kind, layer: layer, feature: feature))
            }
        }

        mutating func addVertices(_ n: Int) throws(MVTDecodeError) {
            vertices += n
            guard vertices <= limits.maxVertices else {
                throw MVTDecodeError(.limitExceeded("more than \(limits.maxVertices) vertices"))
            }
        }
    }

    private func decodeLayer(
        _ layerReader: ProtobufReader, index: Int, keep: Bool, state: inout State
    ) throws(MVTDecodeError) -> DecodedLayer {
        var r = layerReader
        var version: UInt64? = nil
        var name: String? = nil
        var featureRanges: [Range<Int>] = []
        var keys: [String] = []
        var values: [PropertyValue] = []
        var extent: UInt64 = 4096
        do throws(MVTDecodeError) {
            while !r.isAtEnd {
                let offset = r.position
                let (field, wire) = try pb { () throws(ProtobufError) in try r.readTag() }
                func expect(_ w: ProtobufWireType) throws(MVTDecodeError) {
                    guard wire == w else {
                        throw MVTDecodeError(
                            .malformed(.unexpectedWireType(field: field, wireType: wire, offset: offset)))
                    }
                }
                switch field {
                case 15:
                    try expect(.varint)
                    version = try pb { () throws(ProtobufError) in try r.readVarint() }
                case 1:
                    try expect(.lengthDelimited)
                    let range = try pb { () throws(ProtobufError) in try r.readLengthDelimited() }
                    name = try utf8(r.slice(range))
                case 2:
                    try expect(.lengthDelimited)
                    let range = try pb { () throws(ProtobufError) in try r.readLengthDelimited() }
                    state.features += 1
                    guard state.features <= limits.maxFeatures else {
                        throw MVTDecodeError(.limitExceeded("more than \(limits.maxFeatures) features"))
                    }
                    featureRanges.append(range)
                case 3:
                    try expect(.lengthDelimited)
                    let range = try pb { () throws(ProtobufError) in try r.readLengthDelimited() }
                    guard keys.count < limits.maxKeysPerLayer else {
                        throw MVTDecodeError(.limitExceeded("more than \(limits.maxKeysPerLayer) keys"))
                    }
                    keys.append(try utf8(r.slice(range)))
                case 4:
                    try expect(.lengthDelimited)
                    let range = try pb { () throws(ProtobufError) in try r.readLengthDelimited() }
                    guard values.count < limits.maxValuesPerLayer else {
                        throw MVTDecodeError(.limitExceeded("more than \(limits.maxValuesPerLayer) values"))
                    }
                    values.append(try decodeValue(r.subreader(range), keep: keep))
                case 5:
                    try expect(.varint)
                    extent = try pb { () throws(ProtobufError) in try r.readVarint() }
                default:
                    try pb { () throws(ProtobufError) in try r.skip(wire) }
                }
            }
        } catch {
            var e = error
            e.layer = name
            e.layerIndex = index
            throw e
        }
        guard let name else { throw MVTDecodeError(.missingLayerName, layerIndex: index) }
        func fail(_ kind: MVTDecodeError.Kind, feature: Int? = nil) -> MVTDecodeError {
            MVTDecodeError(kind, layer: name, layerIndex: index, feature: feature)
        }
        switch version {
        case nil:
            state.warn(.missingVersion, layer: name)
        case 1:
            state.warn(.versionOne, layer: name)
        case 2:
            break
        case let v?:
            throw fail(.unsupportedVersion(v))
        }
        guard extent >= 1 && extent <= UInt64(UInt32.max) else { throw fail(.invalidExtent(extent)) }
        if featureRanges.isEmpty { state.warn(.emptyLayer, layer: name) }
        let layerVersion = Int(version ?? 1)
        var features: [DecodedFeature] = []
        var keySeen = [Int](repeating: -1, count: keys.count)
        // One tag and one command buffer for the layer's features.
        var (tags, commands) = ([UInt32](), [UInt32]())
        for (i, range) in featureRanges.enumerated() {
            do throws(MVTDecodeError) {
                let f = try decodeFeature(
                    r.subreader(range), keys: keys, values: values, version: layerVersion, keySeen: &keySeen,
                    stamp: i, tags: &tags, commands: &commands, keep: keep, state: &state, layerName: name)
                if let f { features.append(f) }
            } catch {
                var e = error
                e.layer = name
                e.layerIndex = index
                e.feature = i
                throw e
            }
        }
        return DecodedLayer(
            name: name, version: layerVersion, extent: Int(extent), features: features, keys: keys, values: values)
    }

    /// One `Value`; when not `keep`, its string checked but not made (`.null` stands for it).
    private func decodeValue(_ valueReader: ProtobufReader, keep: Bool) throws(MVTDecodeError) -> PropertyValue {
        var r = valueReader
        var result: PropertyValue? = nil
        var fields = 0
        while !r.isAtEnd {
            let offset = r.position
            let (field, wire) = try pb { () throws(ProtobufError) in try r.readTag() }
            let expected: ProtobufWireType
            switch field {
            case 1: expected = .lengthDelimited
            case 2: expected = .fixed32
            case 3: expected = .fixed64
            case 4, 5, 6, 7: expected = .varint
            default:
                try pb { () throws(ProtobufError) in try r.skip(wire) }
                continue
            }
            guard wire == expected else {
                throw MVTDecodeError(.malformed(.unexpectedWireType(field: field, wireType: wire, offset: offset)))
            }
            fields += 1
            switch field {
            case 1:
                let range = try pb { () throws(ProtobufError) in try r.readLengthDelimited() }
                if keep {
                    result = .string(try utf8(r.slice(range)))
                } else {
                    guard UTF8Validation.isValid(r.slice(range)) else { throw MVTDecodeError(.invalidUTF8) }
                    result = .null
                }
            case 2:
                let bits = try pb { () throws(ProtobufError) in try r.readFixed32() }
                result = .double(Double(Float(bitPattern: bits)))
            case 3:
                let bits = try pb { () throws(ProtobufError) in try r.readFixed64() }
                result = .double(Double(bitPattern: bits))
            default:
                let v = try pb { () throws(ProtobufError) in try r.readVarint() }
                switch field {
                case 4: result = .int(Int64(bitPattern: v))
                case 5: result = .uint(v)
                case 6: result = .int(ZigZag.decode(v))
                default: result = .bool(v != 0)
                }
            }
        }
        guard fields == 1, let result else { throw MVTDecodeError(.invalidValue) }
        return result
    }

    // MARK: - Features

    /// One feature, checked; nil when not `keep`. `tags` and `commands` are scratch buffers (emptied first).
    private func decodeFeature(
        _ featureReader: ProtobufReader, keys: [String], values: [PropertyValue], version: Int,
        keySeen: inout [Int], stamp: Int, tags: inout [UInt32], commands: inout [UInt32], keep: Bool,
        state: inout State, layerName: String
    ) throws(MVTDecodeError) -> DecodedFeature? {
        var r = featureReader
        var id: UInt64? = nil
        tags.removeAll(keepingCapacity: true)
        commands.removeAll(keepingCapacity: true)
        var rawType: UInt64 = 0
        while !r.isAtEnd {
            let offset = r.position
            let (field, wire) = try pb { () throws(ProtobufError) in try r.readTag() }
            switch (field, wire) {
            case (1, .varint):
                id = try pb { () throws(ProtobufError) in try r.readVarint() }
            case (2, .lengthDelimited), (4, .lengthDelimited):
                let range = try pb { () throws(ProtobufError) in try r.readLengthDelimited() }
                if field == 2 {
                    try pb { () throws(ProtobufError) in try r.readPackedUInt32(range, into: &tags) }
                } else {
                    try pb { () throws(ProtobufError) in try r.readPackedUInt32(range, into: &commands) }
                }
            case (2, .varint), (4, .varint):
                // Unpacked repeated encoding: legal protobuf for a packed field.
                let v = try pb { () throws(ProtobufError) in try r.readVarint32() }
                if field == 2 { tags.append(v) } else { commands.append(v) }
            case (3, .varint):
                rawType = try pb { () throws(ProtobufError) in try r.readVarint() }
            case (1, _), (2, _), (3, _), (4, _):
                throw MVTDecodeError(.malformed(.unexpectedWireType(field: field, wireType: wire, offset: offset)))
            default:
                try pb { () throws(ProtobufError) in try r.skip(wire) }
            }
        }
        guard let type = MVTGeometryType(rawValue: UInt32(truncatingIfNeeded: rawType)), rawType <= 3 else {
            throw MVTDecodeError(.invalidGeometryType(rawType))
        }
        guard tags.count % 2 == 0 else { throw MVTDecodeError(.oddTagCount) }
        var properties = Properties()
        var t = 0
        while t < tags.count {
            let k = tags[t]
            let v = tags[t + 1]
            t += 2
            guard Int(k) < keys.count else { throw MVTDecodeError(.keyIndexOutOfRange(k)) }
            guard Int(v) < values.count else { throw MVTDecodeError(.valueIndexOutOfRange(v)) }
            guard keySeen[Int(k)] != stamp else { throw MVTDecodeError(.duplicateKeyInFeature(k)) }
            keySeen[Int(k)] = stamp
            if keep { properties.append(keys[Int(k)], values[Int(v)]) }
        }
        let geometry: DecodedGeometry
        switch type {
        case .unknown:
            state.warn(.unknownGeometryType, layer: layerName, feature: stamp)
            geometry = DecodedGeometry(parts: [])
        case .point:
            geometry = try decodePoints(commands, keep: keep, state: &state)
        case .lineString:
            geometry = try decodeLines(commands, version: version, state: &state)
        case .polygon:
            geometry = try decodePolygons(
                commands, version: version, state: &state, layerName: layerName, feature: stamp)
        }
        return keep ? DecodedFeature(id: id, type: type, properties: properties, geometry: geometry) : nil
    }

    // MARK: - Helpers

    private func utf8(_ bytes: ArraySlice<UInt8>) throws(MVTDecodeError) -> String {
        guard let s = String(validating: bytes, as: UTF8.self) else { throw MVTDecodeError(.invalidUTF8) }
        return s
    }
}

/// Runs a protobuf read, turning its error into `MVTDecodeError.Kind.malformed`.
@inline(__always)
private func pb<T>(_ body: () throws(ProtobufError) -> T) throws(MVTDecodeError) -> T {
    do throws(ProtobufError) {
        return try body()
    } catch {
        throw MVTDecodeError(.malformed(error))
    }
}
