internal import CSQLite3

/// The storage class of a result column (`sqlite3_column_type`).
public enum SQLiteColumnType: Sendable, Hashable {
    /// `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB`, `SQLITE_NULL`.
    case integer, float, text, blob, null
}

/// One prepared statement (`sqlite3_stmt*`), owned by this object and finalized by `finalize()` or `deinit`.
/// It keeps its connection alive. Parameter and column indices follow SQLite: binds count from 1, columns from 0.
public final class SQLiteStatement {
    let connection: SQLiteConnection
    var handle: OpaquePointer?
    /// The SQL text, used in error messages.
    public let sql: String

    init(connection: SQLiteConnection, handle: OpaquePointer, sql: String) {
        self.connection = connection
        self.handle = handle
        self.sql = sql
    }

    deinit {
        if let handle { sqlite3_finalize(handle) }
    }

    private func live() throws(SQLiteError) -> OpaquePointer {
        guard let handle else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the statement is finalized", statement: sql)
        }
        return handle
    }

    /// Binds a 64-bit integer. Wraps `sqlite3_bind_int64`.
    public func bind(_ index: Int32, int64 value: Int64) throws(SQLiteError) {
        try connection.check(sqlite3_bind_int64(try live(), index, value), sql)
    }

    /// Binds UTF-8 text, copied by SQLite (`SQLITE_TRANSIENT`). Wraps `sqlite3_bind_text`.
    public func bind(_ index: Int32, text value: String) throws(SQLiteError) {
        let stmt = try live()
        var copy = value
        let rc = copy.withUTF8 { utf8 -> Int32 in
            guard utf8.count <= Int(Int32.max) else { return SQLITE_TOOBIG }
            guard let base = utf8.baseAddress else { return sqlite3_bind_text(stmt, index, "", 0, SQLITE_TRANSIENT) }
            return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                sqlite3_bind_text(stmt, index, $0, Int32(utf8.count), SQLITE_TRANSIENT)
            }
        }
        try connection.check(rc, sql)
    }

    /// Binds a blob, copied by SQLite (`SQLITE_TRANSIENT`); an empty array binds a zero-length blob, not NULL.
    /// Wraps `sqlite3_bind_blob`.
    public func bind(_ index: Int32, blob value: [UInt8]) throws(SQLiteError) {
        let stmt = try live()
        guard value.count <= Int(Int32.max) else {
            throw SQLiteError(code: SQLITE_TOOBIG, message: "blob of \(value.count) bytes is too big", statement: sql)
        }
        let rc: Int32 =
            value.isEmpty
            ? sqlite3_bind_zeroblob(stmt, index, 0)
            : value.withUnsafeBytes {
                sqlite3_bind_blob(stmt, index, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT)
            }
        try connection.check(rc, sql)
    }

    /// Binds SQL NULL. Wraps `sqlite3_bind_null`.
    public func bindNull(_ index: Int32) throws(SQLiteError) {
        try connection.check(sqlite3_bind_null(try live(), index), sql)
    }

    /// Advances the statement. Returns true when a row is available, false when done. Wraps `sqlite3_step`.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        connection.progress?.reset()
        let rc = sqlite3_step(try live())
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        try connection.check(rc, sql)
        return false
    }

    /// Resets the statement to run again; bindings are kept. Wraps `sqlite3_reset`.
    public func reset() throws(SQLiteError) {
        try connection.check(sqlite3_reset(try live()), sql)
    }

    /// Sets every parameter back to NULL. Wraps `sqlite3_clear_bindings`.
    public func clearBindings() throws(SQLiteError) {
        try connection.check(sqlite3_clear_bindings(try live()), sql)
    }

    /// The number of result columns. Wraps `sqlite3_column_count`.
    public var columnCount: Int32 {
        handle.map { sqlite3_column_count($0) } ?? 0
    }

    /// The storage class of column `index` in the current row. Wraps `sqlite3_column_type`.
    public func columnType(at index: Int32) -> SQLiteColumnType {
        guard let handle else { return .null }
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .float
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    /// Column `index` as a 64-bit integer (SQLite's conversion rules apply). Wraps `sqlite3_column_int64`.
    public func int64(at index: Int32) -> Int64 {
        handle.map { sqlite3_column_int64($0, index) } ?? 0
    }

    /// Column `index` as text, or nil for NULL. Invalid UTF-8 is replaced with U+FFFD.
    /// Wraps `sqlite3_column_text`.
    public func text(at index: Int32) -> String? {
        guard let handle, sqlite3_column_type(handle, index) != SQLITE_NULL else { return nil }
        guard let p = sqlite3_column_text(handle, index) else { return "" }
        let n = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: p, count: max(0, n)), as: UTF8.self)
    }

    /// Column `index` as bytes (text as its UTF-8 bytes; NULL as empty). Wraps `sqlite3_column_blob`.
    public func blob(at index: Int32) -> [UInt8] {
        guard let handle, let p = sqlite3_column_blob(handle, index) else { return [] }
        let n = Int(sqlite3_column_bytes(handle, index))
        return [UInt8](UnsafeRawBufferPointer(start: p, count: max(0, n)))
    }

    /// Frees the statement now (also done by `deinit`). Wraps `sqlite3_finalize`.
    public func finalize() {
        if let handle { sqlite3_finalize(handle) }
        handle = nil
    }
}
