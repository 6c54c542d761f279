/// A record's attributes at a zoom, hashed for a tile's signature (`TileSignature`) straight from the record's
/// bytes: the same words as `PropertyHashing.add(record.properties(atZoom: z))`, without building the attributes
/// (a tile's signature reads every piece's record, at every zoom: most of a 100,000-stand night's signatures were
/// spent decoding attributes into strings and arrays).
extension StoredRecord {
    /// Adds `properties(atZoom: z)` to `h` as `PropertyHashing.add(_:)` does. A record with a class or a match
    /// flag at `z` (its attributes there are not those stored) is decoded and hashed as before.
    func addProperties(atZoom z: Int, to h: inout TileHasher) {
        guard !hasClassOrFlags(atZoom: z) else {
            h.add(properties(atZoom: z))
            return
        }
        var r = RecordCodec.Reader(bytes: rest)
        _ = r.varint()  // class base zoom
        let count = Int(r.varint())
        let bytes = rest
        h.add(UInt64(count))
        for _ in 0..<count {
            h.add(text: keys[Int(r.varint())])
            let tag = bytes[r.at]
            r.at += 1
            switch RecordCodec.Tag(rawValue: tag) {
            case .string:
                let n = Int(r.varint())
                h.add(1)
                h.add(bytes[r.at..<(r.at + n)])
                r.at += n
            case .int:
                let v = r.varint()
                h.add(2)
                h.add(UInt64(bitPattern: Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)))
            case .uint:
                h.add(3)
                h.add(r.varint())
            case .double:
                var bits: UInt64 = 0
                for k in 0..<8 { bits |= UInt64(bytes[r.at + k]) << (8 * UInt64(k)) }
                r.at += 8
                h.add(4)
                h.add(bits)
            case .isFalse: h.add(6)
            case .isTrue: h.add(5)
            case .null, nil: h.add(7)
            }
        }
    }
}
