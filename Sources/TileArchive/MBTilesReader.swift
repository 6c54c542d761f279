import Glibc
import KartpackCore
import KartpackJSON
import SQLiteStore

/// Reads MBTiles files read-only: metadata rows, single tiles and every tile (TMS rows converted to XYZ).
///
/// Opens with `SQLITE_OPEN_READONLY` and `immutable`, `trusted_schema=OFF`, `query_only=ON`, SQLite's length
/// limit and a progress handler (`SQLiteReadLimits`); `tiles` and `metadata` must be tables (a view can run any
/// query: endless recursion, `zeroblob(900 MB)`). Garbage, truncated or hostile files produce `.invalidArchive`
/// naming the file and the reason, never a trap or a hang.
///
/// One view is read without running it: the deduplicated layout of mbutil and TileMill, where `tiles` is a view
/// joining the tables `map` (zoom_level, tile_column, tile_row, tile_id) and `images` (tile_data, tile_id). Kartpack
/// then runs its own join of those two tables (`TileRows.deduplicated`), whatever the view's text says.
public final class MBTilesReader {
    /// The file's path.
    public let path: String
    private let db: SQLiteConnection
    private var tileQuery: SQLiteStatement?
    /// Where the tile rows are read from.
    private let rows: TileRows

    /// The tile rows of an MBTiles file: the `tiles` table, or Kartpack's own join of a deduplicated file's
    /// `map` and `images` tables (never the `tiles` view itself).
    enum TileRows: Sendable {
        case table
        case deduplicated

        /// Where `db` keeps its tiles; `metadata` must be a table too. Anything but a real table (a view, a virtual
        /// table) is refused, naming what it is, except a `tiles` view beside real `map` and `images` tables.
        static func find(in db: SQLiteConnection, path: String) throws -> TileRows {
            func isTable(_ name: String) throws -> Bool {
                guard let object = try db.schemaObject(named: name) else { return false }
                let virtual = object.sql.uppercased().hasPrefix("CREATE VIRTUAL")
                guard object.type == "table", !virtual else {
                    throw TileArchiveError.invalidArchive(
                        path: path,
                        reason:
                            "`\(name)` is a \(virtual ? "virtual table" : object.type), not a table; Kartpack reads "
                            + "MBTiles tables only (a view can run any query)")
                }
                return true
            }
            _ = try isTable("metadata")
            if try db.schemaObject(named: "tiles")?.type == "view", try isTable("map"), try isTable("images") {
                return .deduplicated
            }
            _ = try isTable("tiles")
            return .table
        }

        /// The SQL source of (zoom_level, tile_column, tile_row, tile_data) rows.
        var source: String {
            switch self {
            case .table: "tiles"
            case .deduplicated:
                "(SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row, "
                    + "images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id)"
            }
        }
    }

    /// Opens a file and checks that it has the MBTiles tables.
    /// - Throws: `.cannotOpen` (missing, unreadable, not a regular file) or `.invalidArchive`.
    public init(path: String) throws(TileArchiveError) {
        self.path = path
        // Refuse FIFOs, devices and missing files before SQLite sees the path.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        var st = stat()
        let statResult = fstat(fd, &st)
        let statErrno = errno
        _ = close(fd)
        guard statResult == 0 else { throw .cannotOpen(path: path, errno: statErrno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .cannotOpen(path: path, errno: EINVAL) }
        do {
            let db = try SQLiteConnection(untrustedPath: path, limits: MBTilesReader.limits)
            self.db = db
            rows = try TileRows.find(in: db, path: path)
            _ = try db.textColumn("SELECT count(*) FROM metadata")
            _ = try db.textColumn("SELECT zoom_level, tile_column, tile_row, tile_data FROM \(rows.source) LIMIT 0")
        } catch let error as SQLiteError {
            throw MBTilesReader.readError(error, path)
        } catch {
            throw error as? TileArchiveError ?? .invalidArchive(path: path, reason: "\(error)")
        }
    }

    /// The caps every MBTiles read runs under.
    public static let limits = SQLiteReadLimits()

    static func readError(_ e: SQLiteError, _ path: String) -> TileArchiveError {
        if e.isIOError { return .sqlite(SQLiteFailure(e)) }
        if e.isInterrupted {
            return .invalidArchive(
                path: path,
                reason: "a query ran past the limit of \(limits.maxStepInstructions) SQLite instructions per row "
                    + "(\(e.statement))")
        }
        if e.isTooBig {
            return .invalidArchive(
                path: path, reason: "a value exceeds the limit of \(limits.maxValueBytes) bytes (\(e.statement))")
        }
        return .invalidArchive(path: path, reason: "\(e.message) (SQLite error \(e.code))")
    }

    /// Every metadata row, sorted by name (NULL values read as empty text).
    public func metadataRows() throws(TileArchiveError) -> [(name: String, value: String)] {
        do throws(SQLiteError) {
            let stmt = try db.prepare("SELECT name, value FROM metadata ORDER BY name")
            var out: [(name: String, value: String)] = []
            while try stmt.step() {
                out.append((stmt.text(at: 0) ?? "", stmt.text(at: 1) ?? ""))
            }
            return out
        } catch {
            throw MBTilesReader.readError(error, path)
        }
    }

    /// The value of one metadata row, or nil.
    public func metadataValue(_ name: String) throws(TileArchiveError) -> String? {
        try metadataRows().first { $0.name == name }?.value
    }

    /// The `json` metadata row parsed, or nil when there is none.
    public func metadataJSON() throws(TileArchiveError) -> JSONValue? {
        guard let text = try metadataValue("json") else { return nil }
        do throws(JSONParseError) {
            return try JSONParser.parse(text, options: .archiveMetadata)
        } catch {
            throw .invalidArchive(
                path: path, reason: "metadata json: JSON error at byte \(error.offset): \(error.message)")
        }
    }

    /// The stored (compressed) bytes of XYZ tile `z/x/y`, or nil.
    public func tile(z: Int, x: Int, y: Int) throws(TileArchiveError) -> [UInt8]? {
        let key = TileCoordinate(z: z, x: x, y: y)
        guard key.isValid else { return nil }
        do throws(SQLiteError) {
            let stmt: SQLiteStatement
            if let tileQuery {
                stmt = tileQuery
            } else {
                stmt = try db.prepare(
                    "SELECT tile_data FROM \(rows.source) WHERE zoom_level = ?1 AND tile_column = ?2 AND tile_row = ?3",
                    persistent: true)
                tileQuery = stmt
            }
            try stmt.bind(1, int64: Int64(z))
            try stmt.bind(2, int64: Int64(x))
            try stmt.bind(3, int64: Int64(key.tmsY))
            let found = try stmt.step()
            let bytes = found ? stmt.blob(at: 0) : nil
            try stmt.reset()
            return bytes
        } catch {
            throw MBTilesReader.readError(error, path)
        }
    }

    /// The number of rows in `tiles`.
    public func tileCount() throws(TileArchiveError) -> Int {
        do throws(SQLiteError) {
            let stmt = try db.prepare("SELECT count(*) FROM \(rows.source)")
            guard try stmt.step() else { return 0 }
            return Int(stmt.int64(at: 0))
        } catch {
            throw MBTilesReader.readError(error, path)
        }
    }

    /// Visits every tile ordered by zoom, column and TMS row, with XYZ keys; `body` returns false to stop.
    /// A row with a non-integer or out-of-range address is an error.
    public func forEachTile(_ body: (TileCoordinate, [UInt8]) -> Bool) throws(TileArchiveError) {
        do throws(SQLiteError) {
            let stmt = try db.prepare(
                "SELECT zoom_level, tile_column, tile_row, tile_data FROM \(rows.source) ORDER BY zoom_level, "
                    + "tile_column, tile_row"
            )
            var previous: (Int64, Int64, Int64)?
            while try stmt.step() {
                guard stmt.columnType(at: 0) == .integer, stmt.columnType(at: 1) == .integer,
                    stmt.columnType(at: 2) == .integer
                else { throw SQLiteError(code: 20, message: "a tile address is not an integer", statement: stmt.sql) }
                let z = stmt.int64(at: 0)
                let x = stmt.int64(at: 1)
                let row = stmt.int64(at: 2)
                guard z >= 0 && z <= Int64(TileCoordinate.maxZoom), x >= 0, row >= 0, x < (1 << z), row < (1 << z)
                else {
                    throw SQLiteError(
                        code: 20, message: "tile address \(z)/\(x)/row \(row) is outside the grid", statement: stmt.sql)
                }
                let key = TileCoordinate(z: Int(z), x: Int(x), y: (1 << Int(z)) - 1 - Int(row))
                // Rows come sorted by address, so a repeated address follows its twin.
                guard previous.map({ $0 != (z, x, row) }) ?? true else {
                    throw SQLiteError(code: 20, message: "tile \(key) is stored twice", statement: stmt.sql)
                }
                previous = (z, x, row)
                if !body(key, stmt.blob(at: 3)) { break }
            }
        } catch {
            throw MBTilesReader.readError(error, path)
        }
    }
}

extension MBTilesReader: TileArchiveReading {
    /// `.mbtiles`.
    public var format: ArchiveFormat { .mbtiles }
    /// MVT in MBTiles is gzip-compressed (plain tiles of older writers are recognised and passed through).
    public var tileCompression: TileCompression { .gzip }
    /// MBTiles keeps everything in its metadata table.
    public var headerMetadata: [(key: String, value: JSONValue)] { [] }

    /// The `json` row's members, then every other row as a string (a row named like a `json` member is left out).
    public func metadata() throws(TileArchiveError) -> JSONValue {
        var members = try metadataJSON()?.objectMembers ?? []
        for (name, value) in try metadataRows() where name != "json" {
            if !members.contains(where: { $0.key == name }) { members.append((name, .string(value))) }
        }
        return .object(members)
    }

    /// The stored bytes of a tile.
    public func storedTile(_ t: TileCoordinate) throws(TileArchiveError) -> [UInt8]? {
        try tile(z: t.z, x: t.x, y: t.y)
    }

    /// Every row, ordered by zoom, column and TMS row.
    public func forEachStoredTile(_ body: (TileCoordinate, [UInt8]) -> Bool) throws(TileArchiveError) {
        try forEachTile(body)
    }
}
