/// The record index of a `.shp`: byte offset and content length (bytes, without the 8-byte record header) of each
/// record, from the `.shx` or rebuilt by scanning the `.shp`.
struct ShxIndex {
    var offsets: [Int]
    var lengths: [Int]
    var count: Int { offsets.count }

    /// shapelib refuses more records than this.
    static let maxRecords = 256_000_000

    /// Why a `.shx` cannot be used as it is.
    enum Problem: Error {
        case unusable(String)
    }

    /// Parses a `.shx` (whole file). Throws `.unusable` when it is truncated, too short or has a bad magic number;
    /// returns the entries and a warning when its header length field disagrees with its size.
    static func parse(_ bytes: [UInt8]) throws(Problem) -> (ShxIndex, lengthWarning: String?) {
        guard bytes.count >= 100 else {
            throw .unusable("it is \(bytes.count) bytes, shorter than its 100-byte header")
        }
        guard bytes.int32BE(0) == 9994 else { throw .unusable("bad magic number \(bytes.int32BE(0))") }
        guard (bytes.count - 100) % 8 == 0 else {
            throw .unusable("its size \(bytes.count) is not 100 + 8 × records (truncated)")
        }
        var n = (bytes.count - 100) / 8
        var warning: String?
        let declared = Int(UInt32(bitPattern: bytes.int32BE(24))) * 2
        if declared > bytes.count {
            throw .unusable("its header says \(declared) bytes but the file has \(bytes.count) (truncated)")
        }
        if declared != bytes.count {
            if declared >= 100 && (declared - 100) % 8 == 0 {
                n = (declared - 100) / 8
                warning = ".shx header says \(declared) bytes, the file has \(bytes.count); reading \(n) entries"
            } else {
                warning = ".shx header says \(declared) bytes, the file has \(bytes.count); using the file size"
            }
        }
        var index = ShxIndex(offsets: [], lengths: [])
        index.offsets.reserveCapacity(n)
        index.lengths.reserveCapacity(n)
        for i in 0..<n {
            let at = 100 + 8 * i
            // Words are signed 32-bit in the format; negative values become huge offsets that fail validation.
            index.offsets.append(Int(UInt32(bitPattern: bytes.int32BE(at))) * 2)
            index.lengths.append(Int(UInt32(bitPattern: bytes.int32BE(at + 4))) * 2)
        }
        return (index, warning)
    }

    /// Rebuilds the index by walking the `.shp` record headers from byte 100. Stops at the end of the file or at a
    /// record that runs past it (that record is kept, so it is counted and later skipped as `bad_index_entry`).
    static func rebuild(from shp: InputFile) throws(ShapefileError) -> ShxIndex {
        var index = ShxIndex(offsets: [], lengths: [])
        var offset = 100
        let chunkSize = 1 << 20
        var chunk: [UInt8] = []
        var chunkStart = 0
        while offset + 8 <= shp.size {
            if offset < chunkStart || offset + 8 > chunkStart + chunk.count {
                chunk = try shp.bytes(at: offset, count: chunkSize)
                chunkStart = offset
                guard chunk.count >= 8 else { break }
            }
            let length = Int(UInt32(bitPattern: chunk.int32BE(offset - chunkStart + 4))) * 2
            index.offsets.append(offset)
            index.lengths.append(length)
            guard index.count <= maxRecords else {
                throw .badIndex(file: shp.name, reason: "more than \(maxRecords) records")
            }
            offset += 8 + length
        }
        return index
    }

    /// `.shx` bytes for shapelib: the `.shp` header with the length field fixed, then the entries. shapelib checks
    /// every entry at open and refuses the whole file for one bad entry (an offset past `INT_MAX`, a length past
    /// `INT_MAX / 2 - 4` words), so entries the reader will skip anyway (`entryIsUsable` false) are written as 0
    /// and never reach shapelib.
    func shxBytes(shpHeader: [UInt8], shpSize: Int) -> [UInt8] {
        var out = Array(shpHeader.prefix(100))
        let total = 100 + 8 * count
        out.replaceSubrange(24..<28, with: Self.be(Int32(truncatingIfNeeded: total / 2)))
        out.reserveCapacity(total)
        for i in 0..<count {
            let usable = Self.entryIsUsable(offset: offsets[i], length: lengths[i], fileSize: shpSize)
            out.appendInt32BE(usable ? Int32(offsets[i] / 2) : 0)
            out.appendInt32BE(usable ? Int32(lengths[i] / 2) : 0)
        }
        return out
    }

    /// True when a record at `offset` with `length` content bytes lies after the 100-byte header, holds at least a
    /// shape type, and ends inside a file of `fileSize` bytes (at most 4 GiB), with a length shapelib accepts.
    static func entryIsUsable(offset: Int, length: Int, fileSize: Int) -> Bool {
        offset >= 100 && length >= 4 && offset + 8 + length <= fileSize && fileSize <= Int(UInt32.max)
            && length / 2 <= Int(Int32.max) / 2 - 4
    }

    private static func be(_ v: Int32) -> [UInt8] {
        var a: [UInt8] = []
        a.appendInt32BE(v)
        return a
    }
}

extension ShxIndex {
    /// The last record (by offset) when its declared length runs past the end of the `.shp` but its own counts
    /// (parts, points, and the Z block of Z types) fit in the bytes that are there: its length is cut to those bytes
    /// so shapelib reads it, and the declared length is returned for the `record_length_overrun` warning. GDAL reads
    /// such records too; a writer that counted an optional M block, or padding, in the length leaves them behind.
    /// Nothing is changed when the counts do not fit (the record is then `truncated` or a `bad_index_entry`).
    mutating func clipLastOverrun(shp: InputFile) throws(ShapefileError) -> [Int: Int] {
        var last: Int?
        for k in 0..<count where offsets[k] >= 100 && offsets[k] < shp.size {
            if last.map({ offsets[k] > offsets[$0] }) ?? true { last = k }
        }
        guard let last else { return [:] }
        let offset = offsets[last]
        let declared = lengths[last]
        guard offset + 8 + declared > shp.size, offset + 8 + 4 <= shp.size, declared >= 4 else { return [:] }
        let available = (shp.size - offset - 8) & ~1
        let head = try shp.bytes(at: offset + 8, count: min(available, 52))
        guard let required = ShapeContent.requiredLength(head), required <= available else { return [:] }
        var clipped: [Int: Int] = [:]
        for k in 0..<count where offsets[k] == offset && lengths[k] == declared {
            lengths[k] = available
            clipped[k] = declared
        }
        return clipped
    }
}

/// The minimum content length (bytes after the 8-byte record header) that a record's own counts need, the way
/// shapelib 1.5 checks it: M blocks are optional, Z blocks are required for Z types.
enum ShapeContent {
    /// The required length from the first bytes of a record's content (52 are enough), or nil when the type is
    /// unknown or the counts cannot be read.
    static func requiredLength(_ c: [UInt8]) -> Int? {
        guard c.count >= 4 else { return nil }
        let type = c.int32LE(0)
        switch type {
        case 0: return 4
        case 1, 21: return 20
        case 11: return 28
        case 8, 18, 28:
            guard c.count >= 40 else { return nil }
            let n = Int(c.int32LE(36))
            guard n >= 0, n <= 50_000_000 else { return nil }
            return 40 + 16 * n + (type == 18 ? 16 + 8 * n : 0)
        case 3, 5, 13, 15, 23, 25, 31:
            guard c.count >= 44 else { return nil }
            let parts = Int(c.int32LE(36))
            let n = Int(c.int32LE(40))
            guard parts >= 0, n >= 0, parts <= 10_000_000, n <= 50_000_000 else { return nil }
            var size = 44 + 4 * parts + 16 * n
            if type == 13 || type == 15 || type == 31 { size += 16 + 8 * n }
            if type == 31 { size += 4 * parts }
            return size
        default: return nil
        }
    }
}

extension ShxIndex {
    /// How many records `firstKnownShapeType` looks at.
    static let shapeTypeScanLimit = 10_000

    /// The shape type of the first usable record (of the first `shapeTypeScanLimit`) whose type is known and not
    /// Null, or nil.
    func firstKnownShapeType(shp: InputFile) throws(ShapefileError) -> Int32? {
        for k in 0..<Swift.min(count, Self.shapeTypeScanLimit)
        where Self.entryIsUsable(offset: offsets[k], length: lengths[k], fileSize: shp.size) {
            let b = try shp.bytes(at: offsets[k] + 8, count: 4)
            guard b.count == 4 else { continue }
            let type = b.int32LE(0)
            if ShapeType.describe(type) != nil { return type }
        }
        return nil
    }
}
