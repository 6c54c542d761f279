import KartpackCore

/// The coding of one `FeatureRecord`: varints, strings as length and UTF-8, doubles as their 8 bytes.
///
/// flags (bit 0: an id follows; bit 1: `decorated`) · [id] · class base zoom · property count · per property: key
/// number, value (tag, payload) · class count · per zoom: 0 for none, else 1 + length, UTF-8 · flag count · per
/// zoom: key count, key numbers. The rank is not coded: the table keeps ranks in an array of their own.
package enum RecordCodec {
    enum Tag: UInt8 { case string, int, uint, double, isFalse, isTrue, null }

    /// The flag of a record with a class or match flags at some zoom: a record without (most, and every record
    /// of a run without a stylesheet) is written at every zoom with the attributes read, which the encoder then
    /// takes from its bytes without looking past them for classes and flags.
    static let decorated: UInt8 = 2

    package static func encode(_ r: FeatureRecord, keys: inout RecordKeys, into out: inout [UInt8]) {
        let decorates = r.classes.contains { $0 != nil } || r.flags.contains { !$0.isEmpty }
        out.append((r.id == nil ? 0 : 1) | (decorates ? decorated : 0))
        if let id = r.id { PieceEncoder.varint(id, into: &out) }
        PieceEncoder.varint(UInt64(bitPattern: Int64(r.classBaseZoom)), into: &out)
        PieceEncoder.varint(UInt64(r.properties.count), into: &out)
        for (n, (key, value)) in zip(r.properties.keys, r.properties.values).enumerated() {
            PieceEncoder.varint(UInt64(keys.number(key, hint: n)), into: &out)
            switch value {
            case .string(let s):
                out.append(Tag.string.rawValue)
                text(s, into: &out)
            case .int(let v):
                out.append(Tag.int.rawValue)
                PieceEncoder.varint(UInt64(bitPattern: (v << 1) ^ (v >> 63)), into: &out)
            case .uint(let v):
                out.append(Tag.uint.rawValue)
                PieceEncoder.varint(v, into: &out)
            case .double(let v):
                out.append(Tag.double.rawValue)
                withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) }
            case .bool(let b):
                out.append(b ? Tag.isTrue.rawValue : Tag.isFalse.rawValue)
            case .null:
                out.append(Tag.null.rawValue)
            }
        }
        PieceEncoder.varint(UInt64(r.classes.count), into: &out)
        for c in r.classes {
            if let c {
                out.append(1)
                text(c, into: &out)
            } else {
                out.append(0)
            }
        }
        PieceEncoder.varint(UInt64(r.flags.count), into: &out)
        for f in r.flags {
            PieceEncoder.varint(UInt64(f.count), into: &out)
            for k in f { PieceEncoder.varint(UInt64(keys.number(k)), into: &out) }
        }
    }

    private static func text(_ s: String, into out: inout [UInt8]) {
        PieceEncoder.varint(UInt64(s.utf8.count), into: &out)
        out.append(contentsOf: s.utf8)
    }

    /// Reads what `encode` wrote (the table wrote it: a malformed record is a bug, and traps).
    package struct Reader {
        package let bytes: ArraySlice<UInt8>
        var at: Int

        package init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            at = bytes.startIndex
        }

        /// The flags byte and the id: the id, and whether the record is `decorated`.
        package mutating func header() -> (id: UInt64?, decorated: Bool) {
            let flags = bytes[at]
            at += 1
            return (flags & 1 != 0 ? varint() : nil, flags & decorated != 0)
        }

        package mutating func body(id: UInt64?, rank: UInt64, keys: [String]) -> FeatureRecord {
            let base = Int(Int64(bitPattern: varint()))
            let n = Int(varint())
            var pairs: [(String, PropertyValue)] = []
            pairs.reserveCapacity(n)
            for _ in 0..<n {
                let key = keys[Int(varint())]
                let tag = bytes[at]
                at += 1
                let value: PropertyValue
                switch Tag(rawValue: tag) {
                case .string: value = .string(text())
                case .int:
                    let z = varint()
                    value = .int(Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
                case .uint: value = .uint(varint())
                case .double:
                    var bits: UInt64 = 0
                    for k in 0..<8 { bits |= UInt64(bytes[at + k]) << (8 * k) }
                    at += 8
                    value = .double(Double(bitPattern: bits))
                case .isFalse: value = .bool(false)
                case .isTrue: value = .bool(true)
                case .null, nil: value = .null
                }
                pairs.append((key, value))
            }
            var classes: [String?] = []
            let nc = Int(varint())
            classes.reserveCapacity(nc)
            for _ in 0..<nc {
                let present = bytes[at] != 0
                at += 1
                classes.append(present ? text() : nil)
            }
            var flags: [[String]] = []
            let nf = Int(varint())
            flags.reserveCapacity(nf)
            for _ in 0..<nf {
                let k = Int(varint())
                flags.append((0..<k).map { _ in keys[Int(varint())] })
            }
            return FeatureRecord(
                id: id, properties: Properties(pairs), rank: rank, classes: classes, flags: flags, classBaseZoom: base)
        }

        private mutating func text() -> String {
            let n = Int(varint())
            defer { at += n }
            return String(decoding: bytes[at..<(at + n)], as: UTF8.self)
        }

        mutating func varint() -> UInt64 {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = bytes[at]
                at += 1
                v |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return v }
                shift += 7
            }
        }
    }
}
