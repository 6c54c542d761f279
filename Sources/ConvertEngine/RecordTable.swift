import KartpackCore
import Synchronization

/// The feature records of one output layer, stored compactly: each record is a few varint-coded bytes in 64 KiB
/// chunks (`RecordCodec`), attribute keys once per table, ranks in an array of their own (the thinning order
/// compares them). A `FeatureRecord` held as Swift values costs 300–500 bytes (two arrays per record, a heap string
/// per long text); coded, a stand of the benchmarks takes about 50 plus 16 for its rank and place.
///
/// With a `RecordSpill`, a table holds at most its limit of coded bytes in memory: `spillIfOverLimit` writes the
/// full chunks to the scratch file, and reading a record there costs a `pread` (`record(_:)`) or, for records
/// read in ascending order, one chunk read per chunk (`Reader`). Records are read from any thread; appending,
/// spilling and truncating need a unique owner (copy on write).
package struct RecordTable: Sendable {
    private var storage: Storage

    /// An empty table; with `spill`, one whose records leave memory past the spill's limit.
    package init(spill: RecordSpill? = nil) { storage = Storage(spill: spill) }

    package init(_ records: [FeatureRecord], spill: RecordSpill? = nil) {
        self.init(spill: spill)
        for r in records { append(r) }
    }

    package var count: Int { storage.starts.count }
    package var isEmpty: Bool { storage.starts.isEmpty }
    package var indices: Range<Int> { 0..<count }

    /// The thinning rank of record `i` (`FeatureRank`), always in memory.
    func rank(_ i: Int) -> UInt64 { storage.ranks[i] }

    /// Record `i`, read from the scratch file when its chunk was spilled.
    package func record(_ i: Int) throws(SpillError) -> StoredRecord {
        let (chunk, range) = storage.place(i)
        switch storage.chunks[chunk] {
        case .held(let bytes):
            return StoredRecord(bytes: bytes[range], rank: storage.ranks[i], keys: storage.keys)
        case .spilled(let offset, _):
            let bytes = try storage.read(offset: offset + UInt64(range.lowerBound), count: range.count)
            return StoredRecord(bytes: bytes[...], rank: storage.ranks[i], keys: storage.keys)
        }
    }

    /// Reads records keeping the last spilled chunk it read: for a tile's pieces, which come in feature order.
    package func reader() -> Reader { Reader(table: self) }

    /// Reads the records of one table, one spilled chunk at a time.
    package struct Reader {
        fileprivate let table: RecordTable
        private var loaded: (chunk: Int, bytes: [UInt8])?

        fileprivate init(table: RecordTable) { self.table = table }

        package mutating func record(_ i: Int) throws(SpillError) -> StoredRecord {
            let storage = table.storage
            let (chunk, range) = storage.place(i)
            switch storage.chunks[chunk] {
            case .held(let bytes):
                return StoredRecord(bytes: bytes[range], rank: storage.ranks[i], keys: storage.keys)
            case .spilled(let offset, let count):
                if loaded?.chunk != chunk { loaded = (chunk, try storage.spilledChunk(offset: offset, count: count)) }
                return StoredRecord(bytes: loaded!.bytes[range], rank: storage.ranks[i], keys: storage.keys)
            }
        }
    }

    /// Bytes the records take in memory (chunk capacity, places and ranks), for tests and the benchmarks' notes.
    var heldBytes: Int { storage.heldChunkBytes + storage.starts.capacity * 8 + storage.ranks.capacity * 8 }

    /// Coded bytes written to the scratch file.
    var spilledBytes: Int { storage.spilledChunkBytes }

    /// Spilled chunks read from the scratch file by readers (`Reader`), for tests.
    var spilledChunkReads: Int { storage.recent.withLock { $0.reads } }

    package mutating func append(_ r: FeatureRecord) {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        storage.append(r)
    }

    /// Appends a record read from this or another table (re-coded: tables number their keys apart).
    package mutating func append(_ r: StoredRecord) { append(r.record) }

    /// Writes every full chunk to the spill's scratch file when the chunks held are over its limit (a table
    /// without a spill never spills).
    mutating func spillIfOverLimit() throws(SpillError) {
        guard let spill = storage.spill, storage.heldChunkBytes > spill.heldLimit else { return }
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        try storage.spillFullChunks(to: spill)
    }

    /// Forgets every record from index `n` on (the rollback of a rejected input). What was spilled of them stays
    /// in the scratch file, unread.
    mutating func truncate(to n: Int) {
        guard n < count else { return }
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        storage.truncate(to: n)
    }

    private enum Chunk {
        case held([UInt8])
        /// Written to the scratch file: where, and how many bytes.
        case spilled(offset: UInt64, count: Int)
    }

    private final class Storage: @unchecked Sendable {
        /// 64 KiB, smaller under a small spill limit (4 KiB at least), so tiny budgets spill records too.
        let chunkBytes: Int
        /// Per record: chunk index << 32 | offset in the chunk.
        var starts: [UInt64] = []
        var ranks: [UInt64] = []
        var chunks: [Chunk] = []
        var keys = RecordKeys()
        let spill: RecordSpill?
        private(set) var heldChunkBytes = 0
        private(set) var spilledChunkBytes = 0
        /// The spilled chunks readers read last, shared by every reader of the table (`RecentChunks`).
        let recent = Mutex(RecentChunks())

        init(spill: RecordSpill?) {
            self.spill = spill
            chunkBytes = Swift.min(64 << 10, Swift.max(4 << 10, spill?.heldLimit ?? Int.max))
        }

        func copy() -> Storage {
            let s = Storage(spill: spill)
            s.starts = starts
            s.ranks = ranks
            s.chunks = chunks
            s.keys = keys
            s.heldChunkBytes = heldChunkBytes
            s.spilledChunkBytes = spilledChunkBytes
            return s
        }

        /// The chunk of record `i` and its byte range there.
        func place(_ i: Int) -> (chunk: Int, range: Range<Int>) {
            let at = starts[i]
            let chunk = Int(at >> 32)
            let start = Int(at & 0xFFFF_FFFF)
            let end: Int
            if i + 1 < starts.count && Int(starts[i + 1] >> 32) == chunk {
                end = Int(starts[i + 1] & 0xFFFF_FFFF)
            } else {
                switch chunks[chunk] {
                case .held(let bytes): end = bytes.count
                case .spilled(_, let count): end = count
                }
            }
            return (chunk, start..<end)
        }

        func read(offset: UInt64, count: Int) throws(SpillError) -> [UInt8] {
            guard let spill else { throw .corrupt("a spilled record chunk without a scratch file") }
            return try spill.read(offset: offset, count: count)
        }

        /// The spilled chunk at `offset`, from `recent` when a reader read it lately, else from the scratch file.
        func spilledChunk(offset: UInt64, count: Int) throws(SpillError) -> [UInt8] {
            if let bytes = recent.withLock({ $0.bytes(offset: offset, count: count) }) { return bytes }
            let bytes = try read(offset: offset, count: count)
            recent.withLock { $0.keep(offset: offset, count: count, bytes) }
            return bytes
        }

        func append(_ r: FeatureRecord) {
            var bytes: [UInt8] = []
            RecordCodec.encode(r, keys: &keys, into: &bytes)
            let c = chunks.count - 1
            if case .held(var last)? = chunks.last, last.count + bytes.count <= chunkBytes {
                starts.append(UInt64(c) << 32 | UInt64(last.count))
                chunks[c] = .spilled(offset: 0, count: 0)  // lets `last` be appended to in place
                last.append(contentsOf: bytes)
                chunks[c] = .held(last)
            } else {
                var chunk: [UInt8] = []
                chunk.reserveCapacity(Swift.max(chunkBytes, bytes.count))
                chunk.append(contentsOf: bytes)
                starts.append(UInt64(chunks.count) << 32)
                chunks.append(.held(chunk))
                heldChunkBytes += chunk.capacity
            }
            ranks.append(r.rank)
        }

        /// Writes every held chunk but the last (still being filled) to the scratch file.
        func spillFullChunks(to spill: RecordSpill) throws(SpillError) {
            for c in chunks.indices.dropLast() {
                guard case .held(let bytes) = chunks[c] else { continue }
                let offset = try spill.write(bytes)
                chunks[c] = .spilled(offset: offset, count: bytes.count)
                heldChunkBytes -= bytes.capacity
                spilledChunkBytes += bytes.count
            }
        }

        func truncate(to n: Int) {
            guard n < starts.count else { return }
            let chunk = Int(starts[n] >> 32)
            let offset = Int(starts[n] & 0xFFFF_FFFF)
            for c in chunks.indices.dropFirst(chunk + 1) {
                if case .held(let bytes) = chunks[c] { heldChunkBytes -= bytes.capacity }
            }
            chunks.removeSubrange((chunk + 1)...)
            switch chunks[chunk] {
            case .held(var bytes):
                chunks[chunk] = .spilled(offset: 0, count: 0)
                bytes.removeSubrange(offset...)
                chunks[chunk] = .held(bytes)
            case .spilled(let at, _):
                chunks[chunk] = .spilled(offset: at, count: offset)
            }
            if offset == 0 {
                if case .held(let bytes) = chunks[chunk] { heldChunkBytes -= bytes.capacity }
                chunks.removeLast()
            }
            starts.removeSubrange(n...)
            ranks.removeSubrange(n...)
        }
    }
}

/// One record of a `RecordTable`: id and rank decoded, the rest (attributes, classes, flags) when asked for.
package struct StoredRecord: Sendable {
    package var id: UInt64?
    /// The thinning rank (`FeatureRank`).
    var rank: UInt64
    let rest: ArraySlice<UInt8>
    let keys: [String]
    /// The record has a style class or match flags at some zoom (`RecordCodec.decorated`): only then may its
    /// attributes at a zoom differ from those read.
    let decorated: Bool

    fileprivate init(bytes: ArraySlice<UInt8>, rank: UInt64, keys: RecordKeys) {
        var reader = RecordCodec.Reader(bytes: bytes)
        decorated = bytes[bytes.startIndex] & RecordCodec.decorated != 0
        id = reader.header()
        self.rank = rank
        rest = bytes[reader.at...]
        self.keys = keys.names
    }

    /// The whole record.
    package var record: FeatureRecord {
        var reader = RecordCodec.Reader(bytes: rest)
        return reader.body(id: id, rank: rank, keys: keys)
    }

    /// The attributes as read (without `class` and the flags).
    package var properties: Properties { record.properties }

    /// The attributes written at zoom `z` (`FeatureRecord.properties(atZoom:)`).
    package func properties(atZoom z: Int) -> Properties { record.properties(atZoom: z) }
}

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

        package mutating func header() -> UInt64? {
            let hasID = bytes[at] & 1 != 0
            at += 1
            return hasID ? varint() : nil
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
