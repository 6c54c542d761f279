import Gzip
import KartpackCore
import KartpackJSON

/// Writes a PMTiles v3 archive: clustered, deduplicated, run-length encoded, gzip directories and metadata,
/// gzip MVT tiles. Tiles must arrive in ascending TileID (`.hilbert`) order.
///
/// Blobs stream into an anonymous scratch file (in `temporaryDirectory`, else the target's folder); `finish`
/// assembles header, root, metadata, leaves and data into `name.tmp-<pid>-<rand>` next to the target, reads it
/// back to verify, and publishes it atomically (`AtomicFile`).
public final class PMTilesWriter: TileArchiveWriting {
    private enum State { case open, finished, aborted }

    /// The target path.
    public let path: String
    /// Always `.hilbert`.
    public var tileOrder: TileOrder { .hilbert }
    /// How the tiles given to `write` are compressed, as the header says (gzip unless the writer was made with
    /// another: `kartpack extract` copies tiles as stored).
    public let tileCompression: TileCompression
    /// Always true: identical blobs are stored once.
    public var deduplicates: Bool { true }

    private var state = State.open
    private let output: AtomicFile
    private let data: ScratchFile
    private var entries: [PMTilesEntry] = []
    private var lastTile: (id: UInt64, key: TileCoordinate)?
    private var addressedTiles: UInt64 = 0
    private var coverage = TileCoverage()
    // Dedup index: hash -> first blob; `blobNext` chains blobs whose hashes collide.
    private var blobByHash: [UInt64: Int] = [:]
    private var blobOffset: [UInt64] = []
    private var blobLength: [UInt32] = []
    private var blobNext: [Int] = []

    /// Prepares to write `path`.
    /// - Parameters:
    ///   - overwrite: replace an existing file at `path` when publishing; otherwise an existing file is an error.
    ///   - temporaryDirectory: where the tile-data scratch file goes (default: the target's folder).
    ///   - tileCompression: what the header declares for the tiles (they are stored as given).
    /// - Throws: `.targetExists` or `.cannotCreate` (exit code 73).
    public init(
        path: String, overwrite: Bool = false, temporaryDirectory: String? = nil, tileCompression: TileCompression
    ) throws(TileArchiveError) {
        self.path = path
        self.tileCompression = tileCompression
        output = try AtomicFile(targetPath: path, overwrite: overwrite)
        let (directory, name) = POSIXFile.split(path)
        do throws(TileArchiveError) {
            data = try ScratchFile(directory: temporaryDirectory ?? directory, name: name + ".data")
        } catch {
            output.discard()
            throw error
        }
    }

    /// Prepares to write `path` with gzip tiles (what Kartpack's encode phase makes).
    public convenience init(
        path: String, overwrite: Bool = false, temporaryDirectory: String? = nil
    ) throws(TileArchiveError) {
        try self.init(path: path, overwrite: overwrite, temporaryDirectory: temporaryDirectory, tileCompression: .gzip)
    }

    deinit {
        if state == .open { abort() }
    }

    /// Adds one tile (gzip-compressed MVT bytes).
    /// - Throws: `.outOfOrder` unless the TileID is above the previous one; `.invalidTile`, `.emptyTile`;
    ///   `.io` when the scratch file cannot be written.
    public func write(z: Int, x: Int, y: Int, data bytes: [UInt8]) throws(TileArchiveError) {
        try write(z: z, x: x, y: y, data: bytes, contentHash: Self.contentHash(bytes))
    }

    /// What `write(z:x:y:data:contentHash:)` needs of a tile's bytes, which a caller may work out on another thread
    /// beforehand.
    public static func contentHash(_ bytes: [UInt8]) -> UInt64 { fnv1a(bytes) }

    /// `write(z:x:y:data:)` with the tile's `contentHash(_:)` already worked out (it must be that hash: it decides
    /// which stored blobs are compared with the tile, byte for byte, for deduplication).
    public func write(z: Int, x: Int, y: Int, data bytes: [UInt8], contentHash: UInt64) throws(TileArchiveError) {
        guard state == .open else { throw .writerClosed(path: path) }
        let key = TileCoordinate(z: z, x: x, y: y)
        guard let id = PMTilesTileID.id(key) else { throw .invalidTile(key) }
        guard !bytes.isEmpty else { throw .emptyTile(key) }
        guard bytes.count <= Int(UInt32.max) else { throw .invalidMetadata("tile \(key) is larger than 4 GiB") }
        if let last = lastTile, id <= last.id { throw .outOfOrder(previous: last.key, next: key, order: .hilbert) }

        let blob = try findOrStoreBlob(bytes, hash: contentHash)
        let offset = blobOffset[blob]
        let length = blobLength[blob]
        if let i = entries.indices.last, entries[i].offset == offset, entries[i].length == length,
            entries[i].runLength < UInt32.max, entries[i].tileID + UInt64(entries[i].runLength) == id
        {
            entries[i].runLength += 1
        } else {
            entries.append(PMTilesEntry(tileID: id, offset: offset, length: length, runLength: 1))
        }
        lastTile = (id, key)
        addressedTiles += 1
        coverage.include(key)
    }

    /// FNV-1a, 64 bits: a fast, stable content hash; every hit is confirmed by a full byte comparison.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }

    private func findOrStoreBlob(_ bytes: [UInt8], hash: UInt64) throws(TileArchiveError) -> Int {
        var candidate = blobByHash[hash] ?? -1
        while candidate >= 0 {
            if Int(blobLength[candidate]) == bytes.count,
                try data.read(offset: blobOffset[candidate], count: bytes.count) == bytes
            {
                return candidate
            }
            candidate = blobNext[candidate]
        }
        let index = blobOffset.count
        blobOffset.append(data.size)
        blobLength.append(UInt32(bytes.count))
        blobNext.append(blobByHash[hash] ?? -1)
        blobByHash[hash] = index
        try data.append(bytes)
        return index
    }

    /// Writes directories and metadata, verifies the file by reading it back, and publishes it.
    /// On any error the temp files are removed and the target is left as it was.
    public func finish(metadata: ArchiveMetadata) throws(TileArchiveError) -> ArchiveSummary {
        guard state == .open else { throw .writerClosed(path: path) }
        guard !entries.isEmpty else {
            abort()
            throw .emptyArchive(path: path)
        }
        do throws(TileArchiveError) {
            let summary = try assemble(metadata)
            state = .finished
            data.release()
            return summary
        } catch {
            abort()
            throw error
        }
    }

    private func assemble(_ metadata: ArchiveMetadata) throws(TileArchiveError) -> ArchiveSummary {
        let resolved = try metadata.validated(tileZooms: coverage.zooms)
        let bounds = resolved.bounds(coverage)
        let center = resolved.center(coverage)

        var standard: [(key: String, value: JSONValue)] = [
            ("name", .string(metadata.name)), ("type", .string(metadata.type)),
            ("vector_layers", metadata.vectorLayersJSON),
        ]
        if let v = metadata.attribution { standard.append(("attribution", .string(v))) }
        if let v = metadata.description { standard.append(("description", .string(v))) }
        if let v = metadata.generator { standard.append(("generator", .string(v))) }
        if let v = metadata.version { standard.append(("version", .string(v))) }
        let json = try ArchiveMetadata.text(ArchiveMetadata.sortedObject(standard, extra: metadata.extra))
        let metadataBytes = try PMTilesWriter.gzip(Array(json.utf8), "metadata")

        let (root, leaves) = try PMTilesWriter.buildDirectories(entries)
        try data.flush()

        var h = PMTilesHeader()
        h.rootOffset = UInt64(PMTilesHeader.size)
        h.rootLength = UInt64(root.count)
        h.metadataOffset = h.rootOffset + h.rootLength
        h.metadataLength = UInt64(metadataBytes.count)
        h.leafOffset = h.metadataOffset + h.metadataLength
        h.leafLength = UInt64(leaves.count)
        h.tileDataOffset = h.leafOffset + h.leafLength
        h.tileDataLength = data.size
        h.addressedTiles = addressedTiles
        h.tileEntries = UInt64(entries.count)
        h.tileContents = UInt64(blobOffset.count)
        h.clustered = true
        h.internalCompressionCode = PMTilesHeader.Compression.gzip.rawValue
        switch tileCompression {
        case .none: h.tileCompressionCode = PMTilesHeader.Compression.none.rawValue
        case .gzip: h.tileCompressionCode = PMTilesHeader.Compression.gzip.rawValue
        case .unsupported(let code): h.tileCompressionCode = code
        }
        h.tileTypeCode = PMTilesHeader.TileType.mvt.rawValue
        h.minZoom = UInt8(resolved.minZoom)
        h.maxZoom = UInt8(resolved.maxZoom)
        h.minLonE7 = PMTilesHeader.e7(bounds.west, limit: 180)
        h.minLatE7 = PMTilesHeader.e7(bounds.south, limit: 90)
        h.maxLonE7 = PMTilesHeader.e7(bounds.east, limit: 180)
        h.maxLatE7 = PMTilesHeader.e7(bounds.north, limit: 90)
        h.centerZoom = UInt8(center.zoom)
        h.centerLonE7 = PMTilesHeader.e7(center.longitude, limit: 180)
        h.centerLatE7 = PMTilesHeader.e7(center.latitude, limit: 90)

        try output.write(h.serialized())
        try output.write(root)
        try output.write(metadataBytes)
        try output.write(leaves)
        try data.copy(to: output)
        try verify(expectedHeader: h)
        try output.publish()
        return ArchiveSummary(
            format: .pmtiles, path: path, addressedTiles: Int(addressedTiles), tileEntries: entries.count,
            tileContents: blobOffset.count, fileBytes: h.tileDataOffset + h.tileDataLength, minZoom: resolved.minZoom,
            maxZoom: resolved.maxZoom, bounds: bounds)
    }

    /// Reads the temp file back: header, every directory entry, and the metadata must match what was written.
    private func verify(expectedHeader: PMTilesHeader) throws(TileArchiveError) {
        let tempPath = output.temporaryPath
        let reader: PMTilesReader
        do throws(TileArchiveError) {
            reader = try PMTilesReader(path: tempPath)
            guard reader.header == expectedHeader else {
                throw .verificationFailed(path: path, reason: "header differs")
            }
            guard reader.fileSize == expectedHeader.tileDataOffset + expectedHeader.tileDataLength else {
                throw .verificationFailed(path: path, reason: "file size \(reader.fileSize) differs")
            }
            _ = try reader.metadata()
            var i = 0
            var mismatch = false
            try reader.forEachEntry { e in
                guard i < entries.count, entries[i] == e.entry else {
                    mismatch = true
                    return false
                }
                i += 1
                return true
            }
            guard !mismatch, i == entries.count else {
                throw .verificationFailed(path: path, reason: "directory entries differ at entry \(i)")
            }
        } catch {
            if case .verificationFailed = error { throw error }
            throw .verificationFailed(path: path, reason: error.description)
        }
    }

    /// Discards the scratch and temp files; the target is not touched.
    public func abort() {
        guard state == .open else { return }
        state = .aborted
        output.discard()
        data.release()
    }

    static func gzip(_ bytes: [UInt8], _ what: String) throws(TileArchiveError) -> [UInt8] {
        do throws(GzipError) {
            return try Gzip.compress(bytes)
        } catch {
            throw .gzip(error, context: "compressing the PMTiles \(what)")
        }
    }

    /// Builds the compressed root directory and, when the entries do not fit in the first 16 KiB with the header,
    /// one level of leaf directories: leaves of N entries (N from 4096, growing by 1/5) until the root fits.
    static func buildDirectories(
        _ entries: [PMTilesEntry], rootLimit: Int = PMTilesHeader.rootLimit - PMTilesHeader.size
    ) throws(TileArchiveError) -> (root: [UInt8], leaves: [UInt8]) {
        let root = try gzip(PMTilesDirectory.encode(entries), "root directory")
        if root.count <= rootLimit { return (root, []) }
        var leafSize = 4096
        while true {
            var leaves: [UInt8] = []
            var rootEntries: [PMTilesEntry] = []
            var start = 0
            while start < entries.count {
                let end = min(start + leafSize, entries.count)
                let leaf = try gzip(PMTilesDirectory.encode(Array(entries[start..<end])), "leaf directory")
                guard leaf.count <= Int(UInt32.max) else { throw .invalidMetadata("leaf directory over 4 GiB") }
                rootEntries.append(
                    PMTilesEntry(
                        tileID: entries[start].tileID, offset: UInt64(leaves.count), length: UInt32(leaf.count),
                        runLength: 0))
                leaves += leaf
                start = end
            }
            let root = try gzip(PMTilesDirectory.encode(rootEntries), "root directory")
            if root.count <= rootLimit || rootEntries.count == 1 { return (root, leaves) }
            leafSize += max(1, leafSize / 5)
        }
    }
}
