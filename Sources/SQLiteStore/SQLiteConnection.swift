internal import CSQLite3

/// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs before the bind call returns (sqlite3.h L5807).
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite connection (`sqlite3*`), owned by this object and closed by `close()` or, unchecked, by `deinit`.
///
/// Opened with `SQLITE_OPEN_NOMUTEX`: use a connection from one thread only (it is not `Sendable`).
/// Statements keep their connection alive; finalize them before `close()`, which otherwise fails with `SQLITE_BUSY`.
public final class SQLiteConnection {
    /// How to open the database file.
    public enum OpenMode: Sendable, Hashable {
        /// `SQLITE_OPEN_READONLY`: the file must exist.
        case readOnly
        /// `SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE`.
        case readWriteCreate
        /// `SQLITE_OPEN_READONLY` on the `file:` URI with `immutable=1`: no locks, no journal or WAL is read
        /// (for files from elsewhere, see ``SQLiteConnection/init(untrustedPath:limits:)``).
        case readOnlyImmutable
    }

    var handle: OpaquePointer?
    /// The progress handler's budget, when the connection has one (untrusted files): reset by every step.
    var progress: ProgressBudget?
    /// The path the connection was opened with.
    public let path: String

    /// Opens a database. Wraps `sqlite3_open_v2` with `SQLITE_OPEN_NOMUTEX` and extended result codes on.
    public init(path: String, mode: OpenMode) throws(SQLiteError) {
        self.path = path
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readOnlyImmutable: flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
        }
        var db: OpaquePointer?
        let name = mode == .readOnlyImmutable ? Self.immutableURI(path) : path
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            let code = db.map { sqlite3_extended_errcode($0) } ?? rc
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: code, message: message, statement: "open \(path)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        if let handle { sqlite3_close_v2(handle) }
    }

    /// True until `close()` succeeds.
    public var isOpen: Bool { handle != nil }

    /// The live handle, or a misuse error once closed.
    func liveHandle(_ statement: String) throws(SQLiteError) -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the connection is closed", statement: statement)
        }
        return handle
    }

    /// Maps a result code to success or a `SQLiteError` naming `statement`
    /// (`sqlite3_extended_errcode` + `sqlite3_errmsg`).
    func check(_ rc: Int32, _ statement: String) throws(SQLiteError) {
        guard rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE else { return }
        guard let handle else {
            throw SQLiteError(code: rc, message: String(cString: sqlite3_errstr(rc)), statement: statement)
        }
        let extended = sqlite3_extended_errcode(handle)
        // The connection's error may belong to a later call; trust `rc` when they disagree.
        let code = (extended & 0xff) == (rc & 0xff) ? extended : rc
        throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), statement: statement)
    }

    /// Runs one or more SQL statements that return no rows we need. Wraps `sqlite3_exec`.
    public func exec(_ sql: String) throws(SQLiteError) {
        let db = try liveHandle(sql)
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if let errorMessage {
            let text = String(cString: errorMessage)
            sqlite3_free(errorMessage)
            if rc != SQLITE_OK {
                throw SQLiteError(code: sqlite3_extended_errcode(db), message: text, statement: sql)
            }
        }
        try check(rc, sql)
    }

    /// Compiles one statement. Wraps `sqlite3_prepare_v3`; `persistent` sets `SQLITE_PREPARE_PERSISTENT`
    /// for a statement that is reused many times.
    public func prepare(_ sql: String, persistent: Bool = false) throws(SQLiteError) -> SQLiteStatement {
        let db = try liveHandle(sql)
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(db, sql, -1, persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            if let stmt { sqlite3_finalize(stmt) }
            try check(rc == SQLITE_OK ? SQLITE_MISUSE : rc, sql)
            throw SQLiteError(code: SQLITE_MISUSE, message: "empty statement", statement: sql)
        }
        return SQLiteStatement(connection: self, handle: stmt, sql: sql)
    }

    /// Runs a query and returns the first column of every row as text (NULL as nil).
    public func textColumn(_ sql: String) throws(SQLiteError) -> [String?] {
        let stmt = try prepare(sql)
        var rows: [String?] = []
        while try stmt.step() { rows.append(stmt.text(at: 0)) }
        stmt.finalize()
        return rows
    }

    /// Closes the connection and checks the result. Wraps `sqlite3_close`; fails with `SQLITE_BUSY` while
    /// statements are still alive, in which case the connection stays open.
    public func close() throws(SQLiteError) {
        guard let db = handle else { return }
        let rc = sqlite3_close(db)
        guard rc == SQLITE_OK else {
            throw SQLiteError(code: rc, message: String(cString: sqlite3_errmsg(db)), statement: "close \(path)")
        }
        handle = nil
    }
}
