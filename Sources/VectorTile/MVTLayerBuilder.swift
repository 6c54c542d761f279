import KartpackCore

/// Builds one MVT layer: feature messages plus the layer's key and value tables.
///
/// - Keys are deduplicated per layer by their UTF-8 bytes (not Swift's canonical equivalence: `é` precomposed and
/// decomposed are two keys, as two layer names are); values per layer by their wire encoding (type + bytes), so `uint`
///   1 and
///   `double` 1.0 are different values and doubles compare by bit pattern (−0.0 ≠ 0.0, NaNs by payload).
/// - Table indices are assigned in first-use order, walking features in the order they are added.
/// - Integers: `.int(v)` with v ≥ 0 and `.uint(v)` are written as `uint_value`, negative `.int(v)` as
///   `sint_value` (formats.md §1; `int_value` is never written). Hence `.int(5)` and `.uint(5)` share one entry.
///   Reals are always `double_value`; `float_value` is never written.
/// - `.null` values are omitted (MVT has no null) and counted in `nullsOmitted`.
/// - A key repeated within one feature's properties keeps its first value; later ones are counted in
///   `duplicateKeysOmitted`.
public struct MVTLayerBuilder: Sendable {
    /// The layer name (unique within a tile, compared byte for byte).
    public let name: String
    /// The layer extent (tile units per tile side).
    public let extent: Int
    /// Features added so far.
    public private(set) var featureCount = 0
    /// `.null` property values left out.
    public var nullsOmitted: Int { tables.nullsOmitted }
    /// Repeated keys within one feature left out.
    public var duplicateKeysOmitted: Int { tables.duplicateKeysOmitted }
    /// Features refused because their geometry stream was empty.
    public private(set) var emptyGeometriesSkipped = 0
    /// The key table, in first-use order.
    public var keys: [String] { tables.keys }

    /// The key and value tables, and the tags of the feature being added.
    private var tables = MVTFeatureTags()
    /// Encoded `features` fields (tag, length, body), in order.
    private var features = ProtobufWriter()

    /// Creates an empty layer. `extent` must be positive (4096 is the MVT default).
    public init(name: String, extent: Int = 4096) {
        self.name = name
        self.extent = max(1, min(extent, Int(UInt32.max)))
    }

    /// True when the layer has no features (such a layer is left out of the tile).
    public var isEmpty: Bool { featureCount == 0 }

    /// Number of distinct values in the value table.
    public var valueCount: Int { tables.values.count }

    /// The size in bytes of the encoded layer message body.
    public var encodedSize: Int {
        var n = 2  // version field
        n += ProtobufWriter.lengthDelimitedFieldSize(field: 1, contentSize: name.utf8.count)
        n += features.count
        for k in keys { n += ProtobufWriter.lengthDelimitedFieldSize(field: 3, contentSize: k.utf8.count) }
        for v in 0..<valueCount {
            n += ProtobufWriter.lengthDelimitedFieldSize(field: 4, contentSize: tables.values.body(v).count)
        }
        n += 1 + ProtobufWriter.varintSize(UInt64(extent))
        return n
    }

    /// Adds one feature. `geometry` is a command stream from `MVTGeometryEncoder` matching `type`; an empty
    /// stream adds nothing (counted in `emptyGeometriesSkipped`) and returns false. `id` nil omits the id.
    @discardableResult
    public mutating func addFeature(
        id: UInt64?, type: MVTGeometryType, geometry: [UInt32], properties: Properties
    ) -> Bool {
        addFeature(id: id, type: type, geometry: geometry) { tags in
            for (key, value) in zip(properties.keys, properties.values) { tags.add(key, value) }
        }
    }

    /// Adds one feature whose properties `addTags` adds in order to the `MVTFeatureTags` it is given (called only
    /// when the feature is added); otherwise as `addFeature(id:type:geometry:properties:)`.
    @discardableResult
    public mutating func addFeature(
        id: UInt64?, type: MVTGeometryType, geometry: [UInt32], tags addTags: (inout MVTFeatureTags) -> Void
    ) -> Bool {
        guard !geometry.isEmpty else {
            emptyGeometriesSkipped += 1
            return false
        }
        tables.begin(feature: featureCount + 1)
        addTags(&tables)
        let featureTags = tables.tags

        var size = 0
        if let id { size += 1 + ProtobufWriter.varintSize(id) }
        if !featureTags.isEmpty {
            size += ProtobufWriter.lengthDelimitedFieldSize(
                field: 2, contentSize: ProtobufWriter.packedSize(featureTags))
        }
        size += 1 + ProtobufWriter.varintSize(UInt64(type.rawValue))
        size += ProtobufWriter.lengthDelimitedFieldSize(field: 4, contentSize: ProtobufWriter.packedSize(geometry))

        features.writeTag(field: 2, wireType: .lengthDelimited)
        features.writeVarint(UInt64(size))
        if let id { features.writeVarintField(1, id) }
        features.writePackedField(2, featureTags)
        features.writeVarintField(3, UInt64(type.rawValue))
        features.writePackedField(4, geometry)
        featureCount += 1
        return true
    }

    /// Appends the layer message body (without the tile-level tag and length) to `w`.
    func writeBody(into w: inout ProtobufWriter) {
        w.writeVarintField(15, 2)
        w.writeStringField(1, name)
        w.writeRaw(features.bytes)
        for k in keys { w.writeStringField(3, k) }
        for v in 0..<valueCount { w.writeBytesField(4, tables.values.body(v)) }
        w.writeVarintField(5, UInt64(extent))
    }
}
