/// One PMTiles directory entry.
///
/// `runLength >= 1`: tiles `tileID ..< tileID + runLength` share the blob at `offset` (relative to the tile-data
/// section). `runLength == 0`: the entry points to a leaf directory (offset relative to the leaf section).
public struct PMTilesEntry: Sendable, Hashable {
    /// The first TileID covered.
    public var tileID: UInt64
    /// Byte offset within its section.
    public var offset: UInt64
    /// Byte length, > 0.
    public var length: UInt32
    /// Number of consecutive TileIDs sharing the blob; 0 for a leaf-directory pointer.
    public var runLength: UInt32

    /// Creates an entry.
    public init(tileID: UInt64, offset: UInt64, length: UInt32, runLength: UInt32) {
        self.tileID = tileID
        self.offset = offset
        self.length = length
        self.runLength = runLength
    }
}

/// The PMTiles v3 directory serialization: varint count, TileID deltas, run lengths, lengths, then offsets
/// (0 for "contiguous with the previous entry", else offset + 1). Compression is applied by the caller.
public enum PMTilesDirectory {
    /// Serializes entries (uncompressed). Entries must be sorted by TileID.
    public static func encode(_ entries: [PMTilesEntry]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 6 + 4)
        appendVarint(UInt64(entries.count), to: &out)
        var last: UInt64 = 0
        for e in entries {
            appendVarint(e.tileID &- last, to: &out)
            last = e.tileID
        }
        for e in entries { appendVarint(UInt64(e.runLength), to: &out) }
        for e in entries { appendVarint(UInt64(e.length), to: &out) }
        for (i, e) in entries.enumerated() {
            if i > 0 && e.offset == entries[i - 1].offset &+ UInt64(entries[i - 1].length) {
                appendVarint(0, to: &out)
            } else {
                appendVarint(e.offset &+ 1, to: &out)
            }
        }
        return out
    }

    /// Why a serialized directory was rejected.
    public enum DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The bytes end inside a value.
        case truncated
        /// A varint is longer than 10 bytes or overflows 64 bits.
        case badVarint(offset: Int)
        /// The entry count cannot fit in the bytes given.
        case badCount(UInt64)
        /// The directory claims more entries than the reader's limit.
        case tooManyEntries(UInt64, limit: Int)
        /// A value does not fit its field, TileIDs overflow, or an offset of 0 starts the directory.
        case badValue(String)
        /// Bytes are left after the last offset.
        case trailingBytes(Int)

        /// A one-line explanation.
        public var description: String {
            switch self {
            case .truncated: "directory is truncated"
            case .badVarint(let offset): "bad varint at byte \(offset) of the directory"
            case .badCount(let n): "directory entry count \(n) is impossible"
            case .tooManyEntries(let n, let limit): "directory of \(n) entries exceeds the limit of \(limit)"
            case .badValue(let why): "bad directory value: \(why)"
            case .trailingBytes(let n): "\(n) unexpected bytes after the directory"
            }
        }
    }

    /// Parses a serialized (uncompressed) directory, validating every value. Never traps.
    /// - Parameter maxEntries: refuse directories that claim more entries.
    public static func decode(_ bytes: [UInt8], maxEntries: Int = 1 << 24) throws(DecodeError) -> [PMTilesEntry] {
        var pos = 0
        let count = try readVarint(bytes, &pos)
        // Every entry needs at least four bytes (one per column).
        guard count <= UInt64(maxEntries) else { throw .tooManyEntries(count, limit: maxEntries) }
        guard count <= UInt64((bytes.count - pos) / 4) else { throw .badCount(count) }
        let n = Int(count)
        var entries = [PMTilesEntry](repeating: PMTilesEntry(tileID: 0, offset: 0, length: 0, runLength: 0), count: n)
        var last: UInt64 = 0
        for i in 0..<n {
            let delta = try readVarint(bytes, &pos)
            let (sum, overflow) = last.addingReportingOverflow(delta)
            guard !overflow else { throw .badValue("TileID overflows 64 bits at entry \(i)") }
            guard i == 0 || delta > 0 else { throw .badValue("TileIDs not strictly increasing at entry \(i)") }
            entries[i].tileID = sum
            last = sum
        }
        for i in 0..<n {
            let v = try readVarint(bytes, &pos)
            guard v <= UInt64(UInt32.max) else { throw .badValue("run length \(v) at entry \(i)") }
            entries[i].runLength = UInt32(v)
        }
        for i in 0..<n {
            let v = try readVarint(bytes, &pos)
            guard v > 0, v <= UInt64(UInt32.max) else { throw .badValue("length \(v) at entry \(i)") }
            entries[i].length = UInt32(v)
        }
        for i in 0..<n {
            let v = try readVarint(bytes, &pos)
            if v == 0 {
                guard i > 0 else { throw .badValue("first entry uses the contiguous-offset marker") }
                let (o, overflow) = entries[i - 1].offset.addingReportingOverflow(UInt64(entries[i - 1].length))
                guard !overflow else { throw .badValue("offset overflows 64 bits at entry \(i)") }
                entries[i].offset = o
            } else {
                entries[i].offset = v - 1
            }
        }
        guard pos == bytes.count else { throw .trailingBytes(bytes.count - pos) }
        return entries
    }

    /// Appends an unsigned LEB128 varint.
    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Reads an unsigned LEB128 varint of at most 10 bytes.
    static func readVarint(_ bytes: [UInt8], _ pos: inout Int) throws(DecodeError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        let start = pos
        while true {
            guard pos < bytes.count else { throw .truncated }
            let b = bytes[pos]
            pos += 1
            if shift == 63 && b > 1 { throw .badVarint(offset: start) }
            result |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw .badVarint(offset: start) }
        }
    }
}
