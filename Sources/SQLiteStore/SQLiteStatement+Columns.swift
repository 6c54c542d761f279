internal import CSQLite3

extension SQLiteStatement {
    /// Column `index` as a double (SQLite's conversion rules apply). Wraps `sqlite3_column_double`.
    public func double(at index: Int32) -> Double {
        handle.map { sqlite3_column_double($0, index) } ?? 0
    }

    /// The name of result column `index` (its `AS` name, else the column's). Wraps `sqlite3_column_name`.
    public func columnName(at index: Int32) -> String {
        guard let handle, let p = sqlite3_column_name(handle, index) else { return "" }
        return String(cString: p)
    }

    /// Column `index` as UTF-8 bytes, or nil for NULL: the raw text, so a caller can tell invalid UTF-8 from
    /// valid (``text(at:)`` replaces it). Wraps `sqlite3_column_text`.
    public func utf8(at index: Int32) -> [UInt8]? {
        guard let handle, sqlite3_column_type(handle, index) != SQLITE_NULL else { return nil }
        guard let p = sqlite3_column_text(handle, index) else { return [] }
        let n = Int(sqlite3_column_bytes(handle, index))
        return [UInt8](UnsafeBufferPointer(start: p, count: max(0, n)))
    }

    /// Calls `body` with the bytes of blob column `index` in place, without a copy (empty for NULL). The buffer is
    /// valid only inside `body`: SQLite reuses it at the next step. Wraps `sqlite3_column_blob`.
    public func withBlob<R>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let handle, let p = sqlite3_column_blob(handle, index) else {
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let n = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: p, count: max(0, n)))
    }
}

extension SQLiteConnection {
    /// `name` as an SQL identifier in double quotes, embedded quotes doubled (`a"b` → `"a""b"`), so any text —
    /// a table name from an untrusted file too — names exactly that object and never becomes SQL. Nil for a name
    /// holding a NUL character, which SQL text cannot carry.
    public static func quotedIdentifier(_ name: String) -> String? {
        guard !name.utf8.contains(0) else { return nil }
        var out = "\""
        for ch in name.unicodeScalars {
            if ch == "\"" { out += "\"\"" } else { out.unicodeScalars.append(ch) }
        }
        return out + "\""
    }
}
