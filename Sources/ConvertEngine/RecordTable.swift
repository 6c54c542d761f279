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
        (id, decorated) = reader.header()
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

    /// True when the record has a style class or match flags at zoom `z` (`FeatureRecord.properties(atZoom:)`
    /// adds them to its attributes there, so they are not those stored): false at once for a plain record, else
    /// read past the attributes without decoding them.
    func hasClassOrFlags(atZoom z: Int) -> Bool {
        guard decorated else { return false }
        var r = RecordCodec.Reader(bytes: rest)
        let i = z - Int(Int64(bitPattern: r.varint()))
        for _ in 0..<Int(r.varint()) {
            _ = r.varint()
            let tag = RecordCodec.Tag(rawValue: r.bytes[r.at])
            r.at += 1
            switch tag {
            case .string: r.at += Int(r.varint())
            case .int, .uint: _ = r.varint()
            case .double: r.at += 8
            case .isFalse, .isTrue, .null, nil: break
            }
        }
        for k in 0..<Int(r.varint()) {
            let present = r.bytes[r.at] != 0
            r.at += 1
            guard present else { continue }
            if k == i { return true }
            r.at += Int(r.varint())
        }
        for k in 0..<Int(r.varint()) {
            let n = Int(r.varint())
            if k == i { return n > 0 }
            for _ in 0..<n { _ = r.varint() }
        }
        return false
    }
}
