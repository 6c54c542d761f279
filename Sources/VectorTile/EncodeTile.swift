/// Encodes layers into one MVT 2.1 tile (uncompressed protobuf bytes).
///
/// Layers without features are skipped; when every layer is empty the result is empty and the caller should
/// write no tile. Each layer is written with `version` 2 first and an explicit `extent`.
public func encodeTile(_ layers: [MVTLayerBuilder]) throws(MVTEncodeError) -> [UInt8] {
    // Byte-for-byte comparison: Swift String equality is canonical equivalence, so compare UTF-8 bytes.
    var names = Set<[UInt8]>()
    var sizes: [Int] = []
    var total = 0
    for layer in layers where !layer.isEmpty {
        guard names.insert(Array(layer.name.utf8)).inserted else { throw .duplicateLayerName(layer.name) }
        let s = layer.encodedSize
        sizes.append(s)
        total += ProtobufWriter.lengthDelimitedFieldSize(field: 3, contentSize: s)
    }
    var w = ProtobufWriter(capacity: total)
    var i = 0
    for layer in layers where !layer.isEmpty {
        w.writeTag(field: 3, wireType: .lengthDelimited)
        w.writeVarint(UInt64(sizes[i]))
        layer.writeBody(into: &w)
        i += 1
    }
    return w.bytes
}
