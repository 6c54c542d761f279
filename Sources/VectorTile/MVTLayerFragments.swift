/// One MVT layer's features, each encoded once, from which the layer of any subset of them is written byte for
/// byte as an `MVTLayerBuilder` given only that subset (in the same order) would write it.
///
/// Each feature is kept as its id, type, packed geometry field and tags that index the key and value tables of all
/// the features added (`MVTFeatureTags`, same rules as `MVTLayerBuilder`: keys by UTF-8 bytes, values by wire
/// encoding, nulls and repeated keys left out). Writing a subset (`write(keeping:into:)`) renumbers those indices
/// in first-use order among the features kept, which is how the builder numbers them, and copies the rest: the
/// cut-off search of a thinned tile tries many subsets of one tile without interning a value again.
public struct MVTLayerFragments: Sendable {
    /// The layer name (unique within a tile, compared byte for byte).
    public let name: String
    /// The layer extent (tile units per tile side).
    public let extent: Int
    /// The key and value tables of every feature added.
    private var tables = MVTFeatureTags()
    /// Per feature: its id (nil: none), type and where its tags and geometry end in `tags` and `geometry`.
    private var ids: [UInt64?] = []
    private var types: [UInt8] = []
    private var tagEnds: [Int] = []
    private var geometryEnds: [Int] = []
    /// Every feature's tags (key index, value index, …) into `tables`, one feature after another.
    private var tags: [UInt32] = []
    /// Every feature's packed geometry field (tag, length, commands), one after another.
    private var geometry = ProtobufWriter()

    /// Creates an empty layer. `extent` must be positive (4096 is the MVT default).
    public init(name: String, extent: Int = 4096) {
        self.name = name
        self.extent = max(1, min(extent, Int(UInt32.max)))
    }

    /// Features added so far, numbered from 0 in the order added.
    public var count: Int { types.count }

    /// Adds feature number `count` as `MVTLayerBuilder.addFeature(id:type:geometry:tags:)` would: an empty
    /// geometry adds nothing and returns false.
    @discardableResult
    public mutating func addFeature(
        id: UInt64?, type: MVTGeometryType, geometry commands: [UInt32], tags addTags: (inout MVTFeatureTags) -> Void
    ) -> Bool {
        guard !commands.isEmpty else { return false }
        tables.begin(feature: count + 1)
        addTags(&tables)
        tags.append(contentsOf: tables.tags)
        tagEnds.append(tags.count)
        geometry.writePackedField(4, commands)
        geometryEnds.append(geometry.count)
        ids.append(id)
        types.append(UInt8(truncatingIfNeeded: type.rawValue))
        return true
    }

    /// Appends the layer message body of the features numbered `kept` (ascending) to `w`, as an
    /// `MVTLayerBuilder` given those features alone would write it; writes nothing when `kept` is empty.
    public func write(keeping kept: [Int], into w: inout ProtobufWriter) {
        guard !kept.isEmpty else { return }
        // Per table index, its index among the features kept + 1 (0: not used yet), and the table indices by
        // first use.
        var keyNumber = [UInt32](repeating: 0, count: tables.keys.count)
        var valueNumber = [UInt32](repeating: 0, count: tables.values.count)
        var keyOrder: [Int] = []
        var valueOrder: [Int] = []
        var local: [UInt32] = []
        var features = ProtobufWriter()
        tags.withUnsafeBufferPointer { tags in
            geometry.bytes.withUnsafeBufferPointer { geometryBytes in
                for f in kept {
                    local.removeAll(keepingCapacity: true)
                    var t = f == 0 ? 0 : tagEnds[f - 1]
                    while t < tagEnds[f] {
                        let (k, v) = (Int(tags[t]), Int(tags[t + 1]))
                        if keyNumber[k] == 0 {
                            keyOrder.append(k)
                            keyNumber[k] = UInt32(truncatingIfNeeded: keyOrder.count)
                        }
                        if valueNumber[v] == 0 {
                            valueOrder.append(v)
                            valueNumber[v] = UInt32(truncatingIfNeeded: valueOrder.count)
                        }
                        local.append(keyNumber[k] - 1)
                        local.append(valueNumber[v] - 1)
                        t += 2
                    }
                    let g = UnsafeBufferPointer(
                        rebasing: geometryBytes[(f == 0 ? 0 : geometryEnds[f - 1])..<geometryEnds[f]])
                    var size = g.count + 1 + ProtobufWriter.varintSize(UInt64(types[f]))
                    if let id = ids[f] { size += 1 + ProtobufWriter.varintSize(id) }
                    if !local.isEmpty {
                        size += ProtobufWriter.lengthDelimitedFieldSize(
                            field: 2, contentSize: ProtobufWriter.packedSize(local))
                    }
                    features.writeTag(field: 2, wireType: .lengthDelimited)
                    features.writeVarint(UInt64(size))
                    if let id = ids[f] { features.writeVarintField(1, id) }
                    features.writePackedField(2, local)
                    features.writeVarintField(3, UInt64(types[f]))
                    features.writeRaw(g)
                }
            }
        }
        w.writeVarintField(15, 2)
        w.writeStringField(1, name)
        w.writeRaw(features.bytes)
        for k in keyOrder { w.writeStringField(3, tables.keys[k]) }
        for v in valueOrder { w.writeBytesField(4, tables.values.body(v)) }
        w.writeVarintField(5, UInt64(extent))
    }
}

/// Encodes the features numbered `kept[i]` of `layers[i]` into one MVT 2.1 tile, byte for byte as `encodeTile`
/// encodes `MVTLayerBuilder`s given those features alone; layers keeping nothing are left out.
public func encodeTile(
    _ layers: [MVTLayerFragments], keeping kept: [[Int]]
) throws(MVTEncodeError) -> [UInt8] {
    var names = Set<[UInt8]>()
    var w = ProtobufWriter()
    var body = ProtobufWriter()
    for (layer, features) in zip(layers, kept) where !features.isEmpty {
        guard names.insert(Array(layer.name.utf8)).inserted else { throw .duplicateLayerName(layer.name) }
        body.removeAll()
        layer.write(keeping: features, into: &body)
        w.writeBytesField(3, body.bytes)
    }
    return w.bytes
}
