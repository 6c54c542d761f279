internal import CSQLite3

/// A failed SQLite call: the extended result code, SQLite's message and the statement or operation involved.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`sqlite3_extended_errcode`), e.g. 778 for `SQLITE_IOERR_WRITE`.
    public var code: Int32
    /// `sqlite3_errmsg` text, or a description of the misuse.
    public var message: String
    /// The SQL text or the operation (`open`, `close`, `bind`) that failed.
    public var statement: String

    /// Creates an error.
    public init(code: Int32, message: String, statement: String) {
        self.code = code
        self.message = message
        self.statement = statement
    }

    /// The primary result code (the low byte of `code`), e.g. 10 for `SQLITE_IOERR`.
    public var primaryCode: Int32 { code & 0xff }

    /// True for failures of the disk or file system (`SQLITE_IOERR*`, `SQLITE_FULL`), which map to exit code 74.
    public var isIOError: Bool {
        primaryCode == SQLITE_IOERR || primaryCode == SQLITE_FULL
    }

    /// True when the file is not a database or is corrupt (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
    public var isCorruptFile: Bool {
        primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT
    }

    /// True when the file could not be opened (`SQLITE_CANTOPEN`).
    public var isCantOpen: Bool { primaryCode == SQLITE_CANTOPEN }

    /// `SQLite error 778 (…): message [in: statement]`.
    public var description: String {
        let name = String(cString: sqlite3_errstr(code))
        return "SQLite error \(code) (\(name)): \(message) [in: \(statement)]"
    }
}
