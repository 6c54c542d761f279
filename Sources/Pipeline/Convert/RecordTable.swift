import KartpackCore

/// The feature records of one output layer, stored compactly: each record is a few varint-coded bytes in 1 MiB
/// chunks (`RecordCodec`), attribute keys once per table. A `FeatureRecord` held as Swift values costs 300–500
/// bytes (two arrays per record, a heap string per long text); coded, a stand of the benchmarks takes about 60.
///
/// Reading gives a `StoredRecord`: id and rank at hand (the thinning order compares ranks), attributes decoded only
/// when asked for. Records are read from any thread; appending and truncating need a unique owner (copy on write).
struct RecordTable: RandomAccessCollection, Sendable {
    private var storage = Storage()

    init() {}

    init(_ records: [FeatureRecord]) {
        for r in records { append(r) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { storage.starts.count }

    subscript(i: Int) -> StoredRecord {
        let at = storage.starts[i]
        let chunk = Int(at >> 32)
        let start = Int(at & 0xFFFF_FFFF)
        let end =
            i + 1 < storage.starts.count && Int(storage.starts[i + 1] >> 32) == chunk
            ? Int(storage.starts[i + 1] & 0xFFFF_FFFF) : storage.chunks[chunk].count
        return StoredRecord(bytes: storage.chunks[chunk][start..<end], keys: storage.keys)
    }

    /// Bytes the coded records take (chunk capacity included), for tests and the benchmarks' notes.
    var heldBytes: Int { storage.chunks.reduce(0) { $0 + $1.capacity } + storage.starts.capacity * 8 }

    mutating func append(_ r: FeatureRecord) {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        storage.append(r)
    }

    /// Appends a record read from this or another table (re-coded: tables number their keys apart).
    mutating func append(_ r: StoredRecord) { append(r.record) }

    /// Forgets every record from index `n` on (the rollback of a rejected input).
    mutating func truncate(to n: Int) {
        guard n < count else { return }
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        storage.truncate(to: n)
    }

    private final class Storage: @unchecked Sendable {
        static let chunkBytes = 1 << 20
        /// Per record: chunk index << 32 | offset in the chunk.
        var starts: [UInt64] = []
        var chunks: [[UInt8]] = []
        var keys = RecordKeys()

        func copy() -> Storage {
            let s = Storage()
            s.starts = starts
            s.chunks = chunks
            s.keys = keys
            return s
        }

        func append(_ r: FeatureRecord) {
            var bytes: [UInt8] = []
            RecordCodec.encode(r, keys: &keys, into: &bytes)
            if chunks.isEmpty || chunks[chunks.count - 1].count + bytes.count > Self.chunkBytes {
                var chunk: [UInt8] = []
                chunk.reserveCapacity(Swift.max(Self.chunkBytes, bytes.count))
                chunks.append(chunk)
            }
            let c = chunks.count - 1
            starts.append(UInt64(c) << 32 | UInt64(chunks[c].count))
            chunks[c].append(contentsOf: bytes)
        }

        func truncate(to n: Int) {
            guard n < starts.count else { return }
            if n == 0 {
                starts = []
                chunks = []
                return
            }
            let at = starts[n]
            let chunk = Int(at >> 32)
            chunks.removeSubrange((chunk + 1)...)
            chunks[chunk].removeSubrange(Int(at & 0xFFFF_FFFF)...)
            if chunks[chunk].isEmpty { chunks.removeLast() }
            starts.removeSubrange(n...)
        }
    }
}

/// The attribute and flag keys of a `RecordTable`, numbered in first-seen order; compared byte for byte (as MVT
/// keys are), never by Unicode equivalence.
struct RecordKeys: Sendable {
    private(set) var names: [String] = []
    private var index: [ExactKey: Int] = [:]

    mutating func number(_ key: String) -> Int {
        if let i = index[ExactKey(key)] { return i }
        names.append(key)
        index[ExactKey(key)] = names.count - 1
        return names.count - 1
    }

    private struct ExactKey: Hashable {
        let text: String
        init(_ text: String) { self.text = text }
        static func == (a: ExactKey, b: ExactKey) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }
        func hash(into h: inout Hasher) {
            for b in text.utf8 { h.combine(b) }
        }
    }
}

/// One record of a `RecordTable`: id and rank decoded, the rest (attributes, classes, flags) when asked for.
struct StoredRecord: Sendable {
    var id: UInt64?
    /// The thinning rank (`FeatureRank`).
    var rank: UInt64
    private let rest: ArraySlice<UInt8>
    private let keys: [String]

    fileprivate init(bytes: ArraySlice<UInt8>, keys: RecordKeys) {
        var reader = RecordCodec.Reader(bytes: bytes)
        (id, rank) = reader.header()
        rest = bytes[reader.at...]
        self.keys = keys.names
    }

    /// The whole record.
    var record: FeatureRecord {
        var reader = RecordCodec.Reader(bytes: rest)
        return reader.body(id: id, rank: rank, keys: keys)
    }

    /// The attributes as read (without `class` and the flags).
    var properties: Properties { record.properties }

    /// The attributes written at zoom `z` (`FeatureRecord.properties(atZoom:)`).
    func properties(atZoom z: Int) -> Properties { record.properties(atZoom: z) }
}

/// The coding of one `FeatureRecord`: varints, strings as length and UTF-8, doubles as their 8 bytes.
///
/// flags (bit 0: an id follows) · [id] · rank · class base zoom · property count · per property: key number, value
/// (tag, payload) · class count · per zoom: 0 for none, else 1 + length, UTF-8 · flag count · per zoom: key count,
/// key numbers.
enum RecordCodec {
    private enum Tag: UInt8 { case string, int, uint, double, isFalse, isTrue, null }

    static func encode(_ r: FeatureRecord, keys: inout RecordKeys, into out: inout [UInt8]) {
        out.append(r.id == nil ? 0 : 1)
        if let id = r.id { PieceEncoder.varint(id, into: &out) }
        PieceEncoder.varint(r.rank, into: &out)
        PieceEncoder.varint(UInt64(bitPattern: Int64(r.classBaseZoom)), into: &out)
        PieceEncoder.varint(UInt64(r.properties.count), into: &out)
        for (key, value) in zip(r.properties.keys, r.properties.values) {
            PieceEncoder.varint(UInt64(keys.number(key)), into: &out)
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
    struct Reader {
        let bytes: ArraySlice<UInt8>
        private(set) var at: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            at = bytes.startIndex
        }

        mutating func header() -> (id: UInt64?, rank: UInt64) {
            let hasID = bytes[at] & 1 != 0
            at += 1
            let id = hasID ? varint() : nil
            return (id, varint())
        }

        mutating func body(id: UInt64?, rank: UInt64, keys: [String]) -> FeatureRecord {
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

        private mutating func varint() -> UInt64 {
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
