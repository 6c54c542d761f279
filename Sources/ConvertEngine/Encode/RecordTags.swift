import KartpackCore
import VectorTile

extension StoredRecord {
    /// Adds the attributes written at zoom `z` (`properties(atZoom:)`, in that order) to the feature `tags` of an
    /// MVT layer. A record with no class and no flags at `z` (the common case) is read straight from its coded
    /// bytes: string values go to the layer's value table as the UTF-8 the record holds, without a `String` or a
    /// `Properties` made per feature.
    func addTags(atZoom z: Int, to tags: inout MVTFeatureTags) {
        guard !hasClassOrFlags(atZoom: z) else {
            let p = properties(atZoom: z)
            for (key, value) in zip(p.keys, p.values) { tags.add(key, value) }
            return
        }
        let (rest, keys) = (rest, keys)
        rest.withUnsafeBufferPointer { buffer in
            var r = RecordCodec.Reader(bytes: rest)
            _ = r.varint()  // class base zoom
            for _ in 0..<Int(r.varint()) {
                let number = Int(r.varint())
                let key = keys[number]
                let tag = RecordCodec.Tag(rawValue: r.bytes[r.at])
                r.at += 1
                switch tag {
                case .string:
                    let n = Int(r.varint())
                    let start = r.at - rest.startIndex
                    tags.add(key, number: number, utf8: UnsafeBufferPointer(rebasing: buffer[start..<(start + n)]))
                    r.at += n
                case .int:
                    let v = r.varint()
                    tags.add(key, number: number, .int(Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)))
                case .uint: tags.add(key, number: number, .uint(r.varint()))
                case .double:
                    var bits: UInt64 = 0
                    for k in 0..<8 { bits |= UInt64(r.bytes[r.at + k]) << (8 * k) }
                    r.at += 8
                    tags.add(key, number: number, .double(Double(bitPattern: bits)))
                case .isFalse: tags.add(key, number: number, .bool(false))
                case .isTrue: tags.add(key, number: number, .bool(true))
                case .null, nil: tags.add(key, number: number, .null)
                }
            }
        }
    }
}
