public import SQLiteStore

extension SQLiteFailure {
    /// The archive error's form of an SQLite error (its code, exit-code category and full text).
    public init(_ error: SQLiteError) {
        let category: Category =
            error.isIOError ? .io : error.isCantOpen ? .cantOpen : error.isCorruptFile ? .corruptFile : .other
        self.init(code: error.code, category: category, description: error.description)
    }
}
