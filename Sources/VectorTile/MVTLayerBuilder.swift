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
    public private(set) var nullsOmitted = 0
    /// Repeated keys within one feature left out.
    public private(set) var duplicateKeysOmitted = 0
    /// Features refused because their geometry stream was empty.
    public private(set) var emptyGeometriesSkipped = 0
    /// The key table, in first-use order.
    public private(set) var keys: [String] = []

    private var keyIndex: [[UInt8]: UInt32] = [:]
    private var valueIndex: [ValueKey: UInt32] = [:]
    /// Encoded `Value` message bodies, in first-use order.
    private var values: [[UInt8]] = []
    /// Encoded `features` fields (tag, length, body), in order.
    private var features = ProtobufWriter()
    private var featureTags: [UInt32] = []
    private var seenKeys: [Int] = []
    /// Per property position, the key index the feature before had there: a layer's features mostly repeat their
    /// keys in the same order, so a key is usually found by one byte comparison, without hashing or allocating.
    private var keyAtPosition: [UInt32] = []

    /// Creates an empty layer. `extent` must be positive (4096 is the MVT default).
    public init(name: String, extent: Int = 4096) {
        self.name = name
        self.extent = max(1, min(extent, Int(UInt32.max)))
    }

    /// True when the layer has no features (such a layer is left out of the tile).
    public var isEmpty: Bool { featureCount == 0 }

    /// Number of distinct values in the value table.
    public var valueCount: Int { values.count }

    /// The size in bytes of the encoded layer message body.
    public var encodedSize: Int {
        var n = 2  // version field
        n += ProtobufWriter.lengthDelimitedFieldSize(field: 1, contentSize: name.utf8.count)
        n += features.count
        for k in keys { n += ProtobufWriter.lengthDelimitedFieldSize(field: 3, contentSize: k.utf8.count) }
        for v in values { n += ProtobufWriter.lengthDelimitedFieldSize(field: 4, contentSize: v.count) }
        n += 1 + ProtobufWriter.varintSize(UInt64(extent))
        return n
    }

    /// Adds one feature. `geometry` is a command stream from `MVTGeometryEncoder` matching `type`; an empty
    /// stream adds nothing (counted in `emptyGeometriesSkipped`) and returns false. `id` nil omits the id.
    @discardableResult
    public mutating func addFeature(
        id: UInt64?, type: MVTGeometryType, geometry: [UInt32], properties: Properties
    ) -> Bool {
        guard !geometry.isEmpty else {
            emptyGeometriesSkipped += 1
            return false
        }
        featureTags.removeAll(keepingCapacity: true)
        let stamp = featureCount + 1
        for (position, (key, value)) in zip(properties.keys, properties.values).enumerated() {
            if value.isNull {
                nullsOmitted += 1
                continue
            }
            let k = internKey(key, at: position)
            if seenKeys.count <= Int(k) {
                seenKeys.append(contentsOf: repeatElement(0, count: Int(k) + 1 - seenKeys.count))
            }
            if seenKeys[Int(k)] == stamp {
                duplicateKeysOmitted += 1
                continue
            }
            seenKeys[Int(k)] = stamp
            featureTags.append(k)
            featureTags.append(internValue(value))
        }

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
        for v in values { w.writeBytesField(4, v) }
        w.writeVarintField(5, UInt64(extent))
    }

    /// The index of `key` (the `position`-th property of its feature), added to the table on first use.
    private mutating func internKey(_ key: String, at position: Int) -> UInt32 {
        if position < keyAtPosition.count {
            let guess = keyAtPosition[position]
            if keys[Int(guess)].utf8.elementsEqual(key.utf8) { return guess }
        } else {
            keyAtPosition.append(contentsOf: repeatElement(0, count: position + 1 - keyAtPosition.count))
        }
        let bytes = Array(key.utf8)
        let i: UInt32
        if let known = keyIndex[bytes] {
            i = known
        } else {
            i = UInt32(truncatingIfNeeded: keys.count)
            keys.append(key)
            keyIndex[bytes] = i
        }
        keyAtPosition[position] = i
        return i
    }

    private mutating func internValue(_ value: PropertyValue) -> UInt32 {
        let key = ValueKey(value)
        if let i = valueIndex[key] { return i }
        let i = UInt32(truncatingIfNeeded: values.count)
        var w = ProtobufWriter()
        switch key {
        case .string(let s): w.writeBytesField(1, s)
        case .double(let bits): w.writeFixed64Field(3, bits)
        case .uint(let u): w.writeVarintField(5, u)
        case .sint(let s): w.writeSignedVarintField(6, s)
        case .bool(let b): w.writeVarintField(7, b ? 1 : 0)
        }
        values.append(w.bytes)
        valueIndex[key] = i
        return i
    }

    /// The identity of a value on the wire: field type plus payload.
    private enum ValueKey: Hashable {
        case string([UInt8])
        case double(UInt64)
        case uint(UInt64)
        case sint(Int64)
        case bool(Bool)

        init(_ v: PropertyValue) {
            switch v {
            case .string(let s): self = .string(Array(s.utf8))
            case .double(let d): self = .double(d.bitPattern)
            case .uint(let u): self = .uint(u)
            case .int(let i): self = i >= 0 ? .uint(UInt64(i)) : .sint(i)
            case .bool(let b): self = .bool(b)
            case .null: self = .bool(false)  // Never reached: nulls are filtered before interning.
            }
        }
    }
}
