#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Gzip
import KartpackCore
import KartpackJSON

/// A directory entry found while walking a PMTiles archive, with its first tile's coordinates.
public struct PMTilesTileEntry: Sendable, Hashable {
    /// The first tile the entry covers.
    public var key: TileCoordinate
    /// The raw entry (offset relative to the tile-data section).
    public var entry: PMTilesEntry
}

/// Reads PMTiles v3 archives: header, metadata, single tiles and every entry (through leaf directories).
///
/// Built for untrusted files: every offset and length is bounds-checked, decompression and entry counts are
/// capped, directory nesting is limited, and nothing traps on garbage.
public final class PMTilesReader {
    /// Safety caps for untrusted files.
    public struct Limits: Sendable, Hashable {
        /// Largest decompressed directory, in bytes.
        public var maxDirectoryBytes = 64 << 20
        /// Largest decompressed metadata, in bytes.
        public var maxMetadataBytes = 64 << 20
        /// Largest single tile read, in bytes.
        public var maxTileBytes = 64 << 20
        /// Deepest chain of leaf directories followed (the root is depth 0).
        public var maxDepth = 3
        /// Most entries visited by one walk (about a second of work per 32 M entries). Planet-scale archives list
        /// tens of millions of entries; a directory bomb is stopped per directory (`maxDirectoryEntries`) first.
        public var maxEntries = 1 << 27
        /// Most entries one directory (root or leaf) may hold: 24 bytes each once decoded. Writers keep leaves to
        /// thousands of entries; a "leaf bomb" of millions of tiny entries is refused before it is decoded.
        public var maxDirectoryEntries = 1 << 20
        /// Most decoded entries kept in the leaf cache at once (about 100 MB).
        public var maxCachedEntries = 1 << 22

        /// The default caps.
        public init() {}
    }

    /// The archive's path.
    public let path: String
    /// The parsed header.
    public let header: PMTilesHeader
    /// The file's size in bytes.
    public let fileSize: UInt64
    /// The caps in force.
    public let limits: Limits
    private var fd: Int32
    private let root: [PMTilesEntry]
    private var leafCache: [UInt64: (length: UInt32, entries: [PMTilesEntry])] = [:]
    private var cachedEntries = 0

    /// Opens an archive and reads its header and root directory.
    /// - Throws: `.cannotOpen` (missing, unreadable, not a regular file), `.invalidArchive` (garbage,
    ///   truncated), `.unsupported` (brotli/zstd internal compression).
    public init(path: String, limits: Limits = Limits()) throws(TileArchiveError) {
        self.path = path
        self.limits = limits
        // O_NONBLOCK keeps a FIFO from blocking the open; it does not affect regular files.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        self.fd = fd
        do throws(TileArchiveError) {
            let status = try POSIXFile.fileStatus(fd: fd, path: path)
            guard status.isRegular else { throw .cannotOpen(path: path, errno: EINVAL) }
            fileSize = status.size
            let headerBytes = try PMTilesReader.read(fd, path: path, offset: 0, count: PMTilesHeader.size)
            let header: PMTilesHeader
            do throws(PMTilesHeader.ParseError) {
                header = try PMTilesHeader.parse(headerBytes)
            } catch {
                switch error {
                case .tooShort(let n):
                    throw .invalidArchive(path: path, reason: "file is \(n) bytes, shorter than a header")
                case .badMagic: throw .invalidArchive(path: path, reason: "no PMTiles magic")
                case .unsupportedVersion(let v): throw .unsupported(path: path, reason: "spec version \(v)")
                }
            }
            self.header = header
            try PMTilesReader.checkSection(header.rootOffset, header.rootLength, "root directory", fileSize, path)
            try PMTilesReader.checkSection(header.metadataOffset, header.metadataLength, "metadata", fileSize, path)
            try PMTilesReader.checkSection(header.leafOffset, header.leafLength, "leaf directories", fileSize, path)
            try PMTilesReader.checkSection(header.tileDataOffset, header.tileDataLength, "tile data", fileSize, path)
            guard header.rootLength > 0 else { throw .invalidArchive(path: path, reason: "empty root directory") }
            switch header.internalCompression {
            case .some(.gzip), .some(.none): break
            default:
                throw .unsupported(path: path, reason: "internal compression code \(header.internalCompressionCode)")
            }
            root = try PMTilesReader.loadDirectory(
                fd, path: path, header: header, limits: limits, offset: header.rootOffset, length: header.rootLength,
                what: "root directory")
        } catch {
            _ = close(fd)
            self.fd = -1
            throw error
        }
    }

    deinit {
        if fd >= 0 { _ = close(fd) }
    }

    private static func checkSection(
        _ offset: UInt64, _ length: UInt64, _ what: String, _ fileSize: UInt64, _ path: String
    ) throws(TileArchiveError) {
        let (end, overflow) = offset.addingReportingOverflow(length)
        guard !overflow, end <= fileSize else {
            throw .invalidArchive(
                path: path, reason: "\(what) (\(offset)+\(length)) lies beyond the file end \(fileSize)")
        }
    }

    private static func read(_ fd: Int32, path: String, offset: UInt64, count: Int) throws(TileArchiveError) -> [UInt8]
    {
        var out = [UInt8](repeating: 0, count: count)
        let result: Result<Int, TileArchiveError> = out.withUnsafeMutableBytes { raw in
            do throws(TileArchiveError) {
                return .success(try POSIXFile.readAll(fd, into: raw, offset: offset, path: path))
            } catch {
                return .failure(error)
            }
        }
        let got = try result.get()
        if got < count { out.removeSubrange(got...) }
        return out
    }

    private static func decompress(
        _ bytes: [UInt8], code: UInt8, cap: Int, what: String, path: String
    ) throws(TileArchiveError) -> [UInt8] {
        if code == PMTilesHeader.Compression.none.rawValue {
            guard bytes.count <= cap else { throw .invalidArchive(path: path, reason: "\(what) exceeds \(cap) bytes") }
            return bytes
        }
        do throws(GzipError) {
            return try Gzip.decompress(bytes, maxOutput: cap)
        } catch {
            throw .invalidArchive(path: path, reason: "\(what): \(error.description)")
        }
    }

    private static func loadDirectory(
        _ fd: Int32, path: String, header: PMTilesHeader, limits: Limits, offset: UInt64, length: UInt64, what: String
    ) throws(TileArchiveError) -> [PMTilesEntry] {
        guard length <= UInt64(limits.maxDirectoryBytes) else {
            throw .invalidArchive(path: path, reason: "\(what) of \(length) bytes exceeds the cap")
        }
        let raw = try read(fd, path: path, offset: offset, count: Int(length))
        guard raw.count == Int(length) else { throw .invalidArchive(path: path, reason: "\(what) is truncated") }
        let bytes = try decompress(
            raw, code: header.internalCompressionCode, cap: limits.maxDirectoryBytes, what: what, path: path)
        do throws(PMTilesDirectory.DecodeError) {
            return try PMTilesDirectory.decode(bytes, maxEntries: min(limits.maxEntries, limits.maxDirectoryEntries))
        } catch {
            throw .invalidArchive(path: path, reason: "\(what): \(error.description)")
        }
    }

    private func leaf(at offset: UInt64, length: UInt32) throws(TileArchiveError) -> [PMTilesEntry] {
        if let cached = leafCache[offset], cached.length == length { return cached.entries }
        let (end, overflow) = offset.addingReportingOverflow(UInt64(length))
        guard !overflow, end <= header.leafLength else {
            throw .invalidArchive(
                path: path, reason: "leaf directory \(offset)+\(length) lies outside the leaf section")
        }
        let entries = try PMTilesReader.loadDirectory(
            fd, path: path, header: header, limits: limits, offset: header.leafOffset + offset,
            length: UInt64(length), what: "leaf directory at \(offset)")
        cachedEntries += entries.count
        if leafCache.count >= 64 || cachedEntries > limits.maxCachedEntries {
            leafCache.removeAll(keepingCapacity: true)
            cachedEntries = entries.count
        }
        leafCache[offset] = (length, entries)
        return entries
    }

    /// The decompressed metadata JSON text.
    public func metadataText() throws(TileArchiveError) -> String {
        guard header.metadataLength <= UInt64(limits.maxMetadataBytes) else {
            throw .invalidArchive(path: path, reason: "metadata of \(header.metadataLength) bytes exceeds the cap")
        }
        let raw = try PMTilesReader.read(
            fd, path: path, offset: header.metadataOffset, count: Int(header.metadataLength))
        guard raw.count == Int(header.metadataLength) else {
            throw .invalidArchive(path: path, reason: "metadata is truncated")
        }
        let bytes = try PMTilesReader.decompress(
            raw, code: header.internalCompressionCode, cap: limits.maxMetadataBytes, what: "metadata", path: path)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidArchive(path: path, reason: "metadata is not valid UTF-8")
        }
        return text
    }

    /// The metadata JSON, parsed (members in file order). An empty metadata section reads as an empty object.
    public func metadata() throws(TileArchiveError) -> JSONValue {
        guard header.metadataLength > 0 else { return .object([]) }
        let text = try metadataText()
        do throws(JSONParseError) {
            return try JSONParser.parse(text, options: .archiveMetadata)
        } catch {
            throw .invalidArchive(path: path, reason: "metadata: JSON error at byte \(error.offset): \(error.message)")
        }
    }

    /// The stored (still compressed) bytes of tile `z/x/y`, or nil when the archive has no such tile.
    public func tile(z: Int, x: Int, y: Int) throws(TileArchiveError) -> [UInt8]? {
        guard let id = PMTilesTileID.id(z: z, x: x, y: y) else { return nil }
        var directory = root
        for _ in 0...limits.maxDepth {
            guard let entry = PMTilesReader.find(id, in: directory) else { return nil }
            if entry.runLength > 0 { return try tileBytes(entry) }
            directory = try leaf(at: entry.offset, length: entry.length)
        }
        throw .invalidArchive(path: path, reason: "leaf directories nest deeper than \(limits.maxDepth)")
    }

    /// The last entry with `tileID <= id`, when it covers `id` (or is a leaf pointer).
    static func find(_ id: UInt64, in entries: [PMTilesEntry]) -> PMTilesEntry? {
        var lo = 0
        var hi = entries.count - 1
        var found = -1
        while lo <= hi {
            let mid = lo + (hi - lo) / 2
            if entries[mid].tileID <= id {
                found = mid
                lo = mid + 1
            } else {
                hi = mid - 1
            }
        }
        guard found >= 0 else { return nil }
        let e = entries[found]
        if e.runLength == 0 { return e }
        return id - e.tileID < UInt64(e.runLength) ? e : nil
    }

    private func tileBytes(_ entry: PMTilesEntry) throws(TileArchiveError) -> [UInt8] {
        let (end, overflow) = entry.offset.addingReportingOverflow(UInt64(entry.length))
        guard !overflow, end <= header.tileDataLength else {
            throw .invalidArchive(
                path: path, reason: "tile \(entry.offset)+\(entry.length) lies outside the data section")
        }
        guard Int(entry.length) <= limits.maxTileBytes else {
            throw .invalidArchive(path: path, reason: "tile of \(entry.length) bytes exceeds the cap")
        }
        let bytes = try PMTilesReader.read(
            fd, path: path, offset: header.tileDataOffset + entry.offset, count: Int(entry.length))
        guard bytes.count == Int(entry.length) else {
            throw .invalidArchive(path: path, reason: "tile data is truncated")
        }
        return bytes
    }

    /// The stored bytes a tile entry points to.
    public func data(for entry: PMTilesTileEntry) throws(TileArchiveError) -> [UInt8] {
        try tileBytes(entry.entry)
    }

    /// Visits every tile entry in TileID order, descending into leaves; `body` returns false to stop.
    /// Checks that TileIDs strictly increase across the whole walk and that each blob lies in the data section.
    public func forEachEntry(_ body: (PMTilesTileEntry) -> Bool) throws(TileArchiveError) {
        var visited = 0
        var lastEnd: UInt64 = 0
        var first = true
        _ = try walk(root, depth: 0, visited: &visited, lastEnd: &lastEnd, first: &first, body)
    }

    private func walk(
        _ directory: [PMTilesEntry], depth: Int, visited: inout Int, lastEnd: inout UInt64, first: inout Bool,
        _ body: (PMTilesTileEntry) -> Bool
    ) throws(TileArchiveError) -> Bool {
        for e in directory {
            visited += 1
            guard visited <= limits.maxEntries else {
                throw .invalidArchive(path: path, reason: "more than \(limits.maxEntries) directory entries")
            }
            if e.runLength == 0 {
                guard depth < limits.maxDepth else {
                    throw .invalidArchive(path: path, reason: "leaf directories nest deeper than \(limits.maxDepth)")
                }
                let entries = try leaf(at: e.offset, length: e.length)
                if let f = entries.first, f.tileID < e.tileID {
                    throw .invalidArchive(path: path, reason: "leaf directory starts before its root entry")
                }
                guard try walk(entries, depth: depth + 1, visited: &visited, lastEnd: &lastEnd, first: &first, body)
                else { return false }
                continue
            }
            guard first || e.tileID >= lastEnd else {
                throw .invalidArchive(
                    path: path, reason: "tile entries overlap or are out of order at TileID \(e.tileID)")
            }
            let (end, overflow) = e.tileID.addingReportingOverflow(UInt64(e.runLength))
            guard !overflow, let key = PMTilesTileID.coordinate(e.tileID),
                end - 1 < PMTilesTileID.base(TileCoordinate.maxZoom + 1)
            else {
                throw .invalidArchive(path: path, reason: "TileID \(e.tileID) is beyond zoom \(TileCoordinate.maxZoom)")
            }
            let (dataEnd, dataOverflow) = e.offset.addingReportingOverflow(UInt64(e.length))
            guard !dataOverflow, dataEnd <= header.tileDataLength else {
                throw .invalidArchive(path: path, reason: "tile \(key) lies outside the data section")
            }
            first = false
            lastEnd = end
            if !body(PMTilesTileEntry(key: key, entry: e)) { return false }
        }
        return true
    }

    /// Every tile entry, in TileID order (see `forEachEntry`).
    public func entries() throws(TileArchiveError) -> [PMTilesTileEntry] {
        var out: [PMTilesTileEntry] = []
        try forEachEntry {
            out.append($0)
            return true
        }
        return out
    }
}

extension PMTilesReader: TileArchiveReading {
    /// `.pmtiles`.
    public var format: ArchiveFormat { .pmtiles }

    /// From the header's tile compression code (unknown, 0, is read like gzip: gzip bytes are recognised).
    public var tileCompression: TileCompression {
        switch header.tileCompressionCode {
        case PMTilesHeader.Compression.none.rawValue: .none
        case PMTilesHeader.Compression.gzip.rawValue, 0: .gzip
        default: .unsupported(code: header.tileCompressionCode)
        }
    }

    /// The header's zoom range, bounds and centre.
    public var headerMetadata: [(key: String, value: JSONValue)] {
        let h = header
        let c = h.center
        return [
            ("minzoom", .int(Int64(h.minZoom))), ("maxzoom", .int(Int64(h.maxZoom))),
            (
                "bounds",
                .array([
                    .double(Double(h.minLonE7) / 1e7), .double(Double(h.minLatE7) / 1e7),
                    .double(Double(h.maxLonE7) / 1e7), .double(Double(h.maxLatE7) / 1e7),
                ])
            ),
            ("center", .array([.double(c.longitude), .double(c.latitude), .int(Int64(c.zoom))])),
        ]
    }

    /// The stored bytes of a tile.
    public func storedTile(_ t: TileCoordinate) throws(TileArchiveError) -> [UInt8]? {
        try tile(z: t.z, x: t.x, y: t.y)
    }

    /// Every entry's blob, once per entry (a run of identical tiles is visited at its first tile).
    public func forEachStoredTile(_ body: (TileCoordinate, [UInt8]) -> Bool) throws(TileArchiveError) {
        var failure: TileArchiveError?
        try forEachEntry { e in
            do throws(TileArchiveError) {
                return body(e.key, try data(for: e))
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }
}
