import KartpackCore
import SQLiteStore

/// Writes an MBTiles 1.3 file of gzip-compressed MVT tiles (`format=pbf`) with plain `metadata` and `tiles`
/// tables. Tiles must arrive in `.zxy` order; rows are stored as TMS (`tile_row = 2^z - 1 - y`).
///
/// SQLite writes `name.mbtiles.tmp-<pid>-<rand>` in the target folder with `journal_mode=OFF`,
/// `synchronous=OFF` and one transaction (never WAL); `finish` adds metadata, builds `tile_index`, runs
/// `PRAGMA integrity_check`, closes (checked) and publishes atomically.
public final class MBTilesWriter: TileArchiveWriting {
    private enum State { case open, finished, aborted }

    /// The target path.
    public let path: String
    /// Always `.zxy`.
    public var tileOrder: TileOrder { .zxy }
    /// Gzip, as MBTiles clients expect for MVT.
    public var tileCompression: TileCompression { .gzip }
    /// Always false: every tile is its own row.
    public var deduplicates: Bool { false }

    private var state = State.open
    private let output: AtomicFile
    private var connection: SQLiteConnection?
    private var insert: SQLiteStatement?
    private var lastKey: TileCoordinate?
    private var rows = 0
    private var coverage = TileCoverage()

    /// Creates the temp database next to `path` and starts the bulk transaction.
    /// - Parameter overwrite: replace an existing file at `path` when publishing; otherwise it is an error.
    /// - Throws: `.targetExists` or `.cannotCreate` (exit code 73); `.sqlite` when SQLite cannot set up.
    public init(path: String, overwrite: Bool = false) throws(TileArchiveError) {
        self.path = path
        // A -wal/-shm/-journal left by a reader of the previous file would be applied to the new one.
        output = try AtomicFile(
            targetPath: path, overwrite: overwrite, staleSidecarSuffixes: ArchiveFormat.mbtiles.sidecarSuffixes)
        do throws(SQLiteError) {
            let db = try SQLiteConnection(path: output.temporaryPath, mode: .readWriteCreate)
            connection = db
            // Before the first table: the page size only applies to a new file.
            try db.exec(
                """
                PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
                PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;
                PRAGMA application_id=1297105496;
                """)
            try db.exec(
                """
                CREATE TABLE metadata (name text, value text);
                CREATE UNIQUE INDEX name ON metadata (name);
                CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob);
                BEGIN;
                """)
            insert = try db.prepare(
                "INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?1, ?2, ?3, ?4)",
                persistent: true)
        } catch {
            closeQuietly()
            output.discard()
            throw .sqlite(SQLiteFailure(error))
        }
    }

    deinit {
        if state == .open { abort() }
    }

    /// Adds one tile (gzip-compressed MVT bytes) as a TMS row.
    /// - Throws: `.outOfOrder` unless `z/x/y` sorts after the previous tile; `.invalidTile`, `.emptyTile`;
    ///   `.sqlite` on a database failure (exit code 74 for disk errors).
    public func write(z: Int, x: Int, y: Int, data: [UInt8]) throws(TileArchiveError) {
        guard state == .open, let insert else { throw .writerClosed(path: path) }
        let key = TileCoordinate(z: z, x: x, y: y)
        guard key.isValid else { throw .invalidTile(key) }
        guard !data.isEmpty else { throw .emptyTile(key) }
        if let lastKey, !(lastKey < key) { throw .outOfOrder(previous: lastKey, next: key, order: .zxy) }
        do throws(SQLiteError) {
            try insert.bind(1, int64: Int64(z))
            try insert.bind(2, int64: Int64(x))
            try insert.bind(3, int64: Int64(key.tmsY))
            try insert.bind(4, blob: data)
            try insert.step()
            try insert.reset()
            try insert.clearBindings()
        } catch {
            throw .sqlite(SQLiteFailure(error))
        }
        lastKey = key
        rows += 1
        coverage.include(key)
    }

    /// Writes metadata, commits, builds `tile_index`, checks integrity, closes and publishes.
    /// On any error the temp file is removed and the target is left as it was.
    public func finish(metadata: ArchiveMetadata) throws(TileArchiveError) -> ArchiveSummary {
        guard state == .open, let db = connection else { throw .writerClosed(path: path) }
        guard rows > 0 else {
            abort()
            throw .emptyArchive(path: path)
        }
        do throws(TileArchiveError) {
            let resolved = try metadata.validated(tileZooms: coverage.zooms)
            let bounds = resolved.bounds(coverage)
            let center = resolved.center(coverage)
            let json = try ArchiveMetadata.text(
                ArchiveMetadata.sortedObject(
                    [("vector_layers", metadata.vectorLayersJSON)], extra: metadata.extra))
            var pairs: [(String, String)] = [
                ("name", metadata.name), ("format", "pbf"),
                (
                    "bounds",
                    [bounds.west, bounds.south, bounds.east, bounds.north].map(MBTilesWriter.number).joined(
                        separator: ",")
                ),
                (
                    "center",
                    "\(MBTilesWriter.number(center.longitude)),\(MBTilesWriter.number(center.latitude)),\(center.zoom)"
                ),
                ("minzoom", String(resolved.minZoom)), ("maxzoom", String(resolved.maxZoom)),
                ("json", json), ("type", metadata.type),
            ]
            if let v = metadata.attribution { pairs.append(("attribution", v)) }
            if let v = metadata.description { pairs.append(("description", v)) }
            if let v = metadata.version { pairs.append(("version", v)) }
            if let v = metadata.generator { pairs.append(("generator", v)) }
            pairs.sort { $0.0 < $1.0 }
            do throws(SQLiteError) {
                insert?.finalize()
                insert = nil
                let put = try db.prepare("INSERT INTO metadata (name, value) VALUES (?1, ?2)")
                for (name, value) in pairs {
                    try put.bind(1, text: name)
                    try put.bind(2, text: value)
                    try put.step()
                    try put.reset()
                }
                put.finalize()
                try db.exec("COMMIT")
                try db.exec("CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row)")
                let check = try db.textColumn("PRAGMA integrity_check")
                guard check == ["ok"] else {
                    throw SQLiteError(
                        code: 11, message: "integrity_check: " + check.map { $0 ?? "NULL" }.joined(separator: "; "),
                        statement: "PRAGMA integrity_check")
                }
                let counted = try db.textColumn("SELECT count(*) FROM tiles")
                guard counted == [String(rows)] else {
                    throw SQLiteError(
                        code: 11, message: "expected \(rows) rows, found \(counted.first.flatMap { $0 } ?? "none")",
                        statement: "SELECT count(*) FROM tiles")
                }
                try db.close()
                connection = nil
            } catch {
                throw .sqlite(SQLiteFailure(error))
            }
            try output.publish()
            state = .finished
            let size = MBTilesWriter.fileSize(path)
            return ArchiveSummary(
                format: .mbtiles, path: path, addressedTiles: rows, tileEntries: rows, tileContents: rows,
                fileBytes: size, minZoom: resolved.minZoom, maxZoom: resolved.maxZoom, bounds: bounds)
        } catch {
            abort()
            throw error
        }
    }

    /// Closes the database and removes the temp file; the target is not touched.
    public func abort() {
        guard state == .open else { return }
        state = .aborted
        closeQuietly()
        output.discard()
    }

    private func closeQuietly() {
        insert?.finalize()
        insert = nil
        if let db = connection {
            do throws(SQLiteError) { try db.close() } catch {
                // The connection is released by deinit (`sqlite3_close_v2`); the file is deleted anyway.
            }
        }
        connection = nil
    }

    /// Degrees as short, stable text (rounded to 1e-7; Swift's shortest round-trip form).
    static func number(_ v: Double) -> String {
        TileCoverage.rounded7(v).description
    }

    static func fileSize(_ path: String) -> UInt64 {
        POSIXFile.size(of: path) ?? 0
    }
}
