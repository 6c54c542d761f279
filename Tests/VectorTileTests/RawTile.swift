import KartpackTestSupport
import VectorTile

/// Builds protobuf tiles field by field, so tests can make tiles the encoder would never write.
enum RawTile {
    static func feature(id: UInt64? = nil, tags: [UInt32] = [], type: UInt64? = 1, geometry: [UInt32] = [9, 50, 34])
        -> [UInt8]
    {
        var w = ProtobufWriter()
        if let id { w.writeVarintField(1, id) }
        w.writePackedField(2, tags)
        if let type { w.writeVarintField(3, type) }
        w.writePackedField(4, geometry)
        return w.bytes
    }

    static func layer(
        name: String? = "l", version: UInt64? = 2, features: [[UInt8]] = [feature()], keys: [String] = [],
        values: [[UInt8]] = [], extent: UInt64? = 4096
    ) -> [UInt8] {
        var w = ProtobufWriter()
        if let version { w.writeVarintField(15, version) }
        if let name { w.writeStringField(1, name) }
        for f in features { w.writeBytesField(2, f) }
        for k in keys { w.writeStringField(3, k) }
        for v in values { w.writeBytesField(4, v) }
        if let extent { w.writeVarintField(5, extent) }
        return w.bytes
    }

    static func tile(_ layers: [[UInt8]]) -> [UInt8] {
        var w = ProtobufWriter()
        for l in layers { w.writeBytesField(3, l) }
        return w.bytes
    }

    static func stringValue(_ s: String) -> [UInt8] {
        var w = ProtobufWriter()
        w.writeStringField(1, s)
        return w.bytes
    }
}

/// The shared deterministic generator.
typealias SplitMix64 = KartpackTestSupport.SplitMix64
