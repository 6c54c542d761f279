import Checksum
import Foundation
import KartpackCore
import KartpackJSON
import TileArchive

/// What a shard part says about itself: which plan and shard it was built for, the key ranges of its tiles in the
/// archive's tile order (`ShardTiles`), the final package's file name and format, and, in the first shard's part,
/// the metadata the package gets (`ShardTarget.holdsMetadata`; null in the others).
package struct ShardPartHeader: Sendable {
    /// SHA-256 of the plan file the part was built from.
    package var planDigest: String
    package var shard: Int
    package var shards: Int
    package var tiles: ShardTiles
    /// The final package's file name (`ShardPlan.output`'s last component).
    package var outputName: String
    package var format: ArchiveFormat
    /// The package metadata, as `ArchiveMetadata.shardJSON` (null in a part that does not hold it).
    package var metadata: JSONValue

    package var json: JSONValue {
        .object([
            ("plan", .string(planDigest)), ("shard", .int(Int64(shard))), ("shards", .int(Int64(shards))),
            ("ranges", tiles.json),
            ("output", .string(outputName)), ("format", .string(format.rawValue)), ("metadata", metadata),
        ])
    }

    package init(
        planDigest: String, shard: Int, shards: Int, tiles: ShardTiles, outputName: String, format: ArchiveFormat,
        metadata: JSONValue
    ) {
        self.planDigest = planDigest
        self.shard = shard
        self.shards = shards
        self.tiles = tiles
        self.outputName = outputName
        self.format = format
        self.metadata = metadata
    }

    package init?(json j: JSONValue) {
        guard let plan = j["plan"]?.stringValue, let shard = j["shard"]?.intValue, let shards = j["shards"]?.intValue,
            let tiles = ShardTiles(json: j["ranges"]), let output = j["output"]?.stringValue,
            let format = j["format"]?.stringValue.flatMap(ArchiveFormat.init(rawValue:)), let metadata = j["metadata"]
        else { return nil }
        self.init(
            planDigest: plan, shard: Int(shard), shards: Int(shards), tiles: tiles, outputName: output, format: format,
            metadata: metadata)
    }
}

/// The file a shard writes: its tiles, compressed as the archive stores them, in the archive's tile order, with
/// what the merge needs. Layout (integers little-endian):
///
///     "KARTPACK-SHARD-PART 3\n" (the part format: 3 since a part holds several key ranges)
///     u32 header length, header JSON (`ShardPartHeader`)
///     optionally: u8 2, u64 length, the shard's feature notes (`ShardFeatureNotes.bytes`)
///     per tile: u8 1, u64 order key, u8 z, u32 x, u32 y, u32 length, the tile's bytes
///     u8 0, u64 tile count, 32 bytes SHA-256 of everything before it
///
/// The trailing hash makes a truncated or damaged part fail the merge instead of publishing a hole.
package enum ShardPart {
    static let magic = Array("KARTPACK-SHARD-PART \(formatVersion)\n".utf8)
    /// The part format this Kartpack writes and reads (1: before the feature notes; 2: one key range a part).
    static let formatVersion = 3

    /// Writes a part: `notes` (when given) first, then `tiles` yields each tile in archive order; a tile that is not
    /// the header's (`ShardPartHeader.tiles`) is an internal error. The file is written at `path` (a staging name:
    /// the caller publishes it) and fsync'd.
    package static func write(
        path: String, header: ShardPartHeader, order: TileOrder, notes: ShardFeatureNotes? = nil,
        tiles: ((TileCoordinate, [UInt8]) throws -> Void) throws -> Void
    ) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw ShardError.missing(path: path, reason: "cannot create the part file") }
        defer { try? handle.close() }
        var hash = SHA256()
        var buffer: [UInt8] = []
        func flush() throws {
            hash.update(buffer)
            try handle.write(contentsOf: buffer)
            buffer.removeAll(keepingCapacity: true)
        }
        let headerText = Array(JSONWriter.text(header.json, format: .compact).utf8)
        buffer += magic
        append(UInt32(headerText.count), to: &buffer)
        buffer += headerText
        if let notes {
            let bytes = notes.bytes
            buffer.append(2)
            append(UInt64(bytes.count), to: &buffer)
            buffer += bytes
            try flush()
        }
        var count: UInt64 = 0
        var previous: UInt64?
        try tiles { tile, bytes in
            guard let key = order.sortKey(tile), header.tiles.contains(key), previous.map({ $0 < key }) ?? true else {
                throw PipelineError.tileEncoding(tile: tile.description, reason: "outside the shard's range or order")
            }
            previous = key
            buffer.append(1)
            append(key, to: &buffer)
            buffer.append(UInt8(tile.z))
            append(UInt32(tile.x), to: &buffer)
            append(UInt32(tile.y), to: &buffer)
            append(UInt32(bytes.count), to: &buffer)
            buffer += bytes
            count += 1
            if buffer.count >= 1 << 20 { try flush() }
        }
        buffer.append(0)
        append(count, to: &buffer)
        try flush()
        try handle.write(contentsOf: hash.finalize())
        try handle.synchronize()
        return Int(count)
    }

    package static func append<T: FixedWidthInteger>(_ v: T, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { buffer += $0 }
    }
}

/// Reads a part file: the header at once, the tiles streamed (`nextTile`), the trailing hash checked at the end.
package final class ShardPartReader {
    package let path: String
    package let header: ShardPartHeader
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var position = 0
    private var hash = SHA256()
    private var atEnd = false
    /// Tiles read so far.
    private var count: UInt64 = 0
    /// The part's feature notes (`ShardFeatureNotes`), once `nextTile` has read past them; nil when it has none.
    package private(set) var notes: ShardFeatureNotes?

    package init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ShardError.missing(path: path, reason: "cannot open the part file")
        }
        var hash = SHA256()
        var headerBytes: [UInt8] = []
        do {
            let magic = try Self.take(ShardPart.magic.count, handle: handle, path: path)
            guard magic == ShardPart.magic else { throw ShardError.damaged(path: path, reason: Self.otherMagic(magic)) }
            let lengthBytes = try Self.take(4, handle: handle, path: path)
            let length = Int(Self.integer(lengthBytes, as: UInt32.self))
            guard length <= 64 << 20 else { throw ShardError.damaged(path: path, reason: "header too long") }
            headerBytes = try Self.take(length, handle: handle, path: path)
            hash.update(magic)
            hash.update(lengthBytes)
            hash.update(headerBytes)
        } catch {
            try? handle.close()
            throw error
        }
        guard let json = try? JSONParser.parse(headerBytes), let header = ShardPartHeader(json: json) else {
            try? handle.close()
            throw ShardError.damaged(path: path, reason: "the header is not a part header")
        }
        self.path = path
        self.handle = handle
        self.header = header
        self.hash = hash
    }

    deinit { try? handle.close() }

    /// Why a file's first bytes are not this Kartpack's part header: a part of another part format (a shard run by
    /// another Kartpack), or no part at all.
    static func otherMagic(_ bytes: [UInt8]) -> String {
        let prefix = Array("KARTPACK-SHARD-PART ".utf8)
        guard bytes.starts(with: prefix), bytes.last == UInt8(ascii: "\n") else { return "no part header" }
        let version = String(decoding: bytes[prefix.count..<(bytes.count - 1)], as: UTF8.self)
        return "a part of format \(version), this Kartpack reads format \(ShardPart.formatVersion) "
            + "(were the shards run by another Kartpack?)"
    }

    private static func take(_ n: Int, handle: FileHandle, path: String) throws -> [UInt8] {
        let data = (try? handle.read(upToCount: n)) ?? nil
        guard let data, data.count == n else { throw ShardError.damaged(path: path, reason: "truncated") }
        return [UInt8](data)
    }

    package static func integer<T: FixedWidthInteger>(_ bytes: some Collection<UInt8>, as type: T.Type) -> T {
        var v: T = 0
        for (i, b) in bytes.enumerated() { v |= T(b) << (8 * i) }
        return v
    }

    /// The next `n` bytes of the tile stream (hashed).
    private func next(_ n: Int) throws -> ArraySlice<UInt8> {
        if buffer.count - position < n {
            buffer.removeFirst(position)
            position = 0
            while buffer.count < n {
                guard let data = try handle.read(upToCount: max(1 << 20, n - buffer.count)), !data.isEmpty else {
                    throw ShardError.damaged(path: path, reason: "truncated")
                }
                buffer += data
            }
        }
        let slice = buffer[position..<position + n]
        position += n
        hash.update(slice)
        return slice
    }

    /// One tile of a part: its order key, coordinate and bytes.
    package typealias Tile = (key: UInt64, tile: TileCoordinate, bytes: [UInt8])

    /// The next tile in file order; nil past the last, once the count and the hash are checked (and after that).
    package func nextTile() throws -> Tile? {
        guard !atEnd else { return nil }
        while true {
            let tag = try next(1).first
            if tag == 0 { break }
            if tag == 2, notes == nil {
                let length = Int(Self.integer(try next(8), as: UInt64.self))
                guard length <= 1 << 40, let read = ShardFeatureNotes(bytes: Array(try next(length))) else {
                    throw ShardError.damaged(path: path, reason: "its feature notes cannot be read")
                }
                notes = read
                continue
            }
            guard tag == 1 else { throw ShardError.damaged(path: path, reason: "bad tile record") }
            let fixed = try next(21)
            let key = Self.integer(fixed.prefix(8), as: UInt64.self)
            let z = Int(fixed[fixed.startIndex + 8])
            let x = Int(Self.integer(fixed.dropFirst(9).prefix(4), as: UInt32.self))
            let y = Int(Self.integer(fixed.dropFirst(13).prefix(4), as: UInt32.self))
            let length = Int(Self.integer(fixed.dropFirst(17), as: UInt32.self))
            count += 1
            return (key, TileCoordinate(z: z, x: x, y: y), Array(try next(length)))
        }
        let stated = Self.integer(try next(8), as: UInt64.self)
        let computed = hash.finalize()
        buffer.removeFirst(position)
        position = 0
        while buffer.count < 32, let data = try handle.read(upToCount: 32 - buffer.count), !data.isEmpty {
            buffer += data
        }
        guard stated == count, Array(buffer.prefix(32)) == computed, buffer.count == 32,
            (try handle.read(upToCount: 1))?.isEmpty ?? true
        else { throw ShardError.damaged(path: path, reason: "its tiles do not match its checksum (damaged or cut)") }
        atEnd = true
        return nil
    }

    /// Calls `body` with each tile (order key, coordinate, bytes) in file order, then checks the count and hash.
    package func forEachTile(_ body: (UInt64, TileCoordinate, [UInt8]) throws -> Void) throws {
        while let t = try nextTile() { try body(t.key, t.tile, t.bytes) }
    }
}
