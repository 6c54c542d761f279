internal import CSQLite3

/// Caps for reading a database file that came from elsewhere (a package to inspect, extract or verify).
///
/// Applied by ``SQLiteConnection/init(untrustedPath:limits:)``: SQLite refuses larger values itself
/// (`SQLITE_TOOBIG`), and a progress handler interrupts a statement whose step runs too long
/// (`SQLITE_INTERRUPT`), so no file can make a read allocate without bound or run for ever.
public struct SQLiteReadLimits: Sendable, Hashable {
    /// Largest string or blob a statement may read or produce (`SQLITE_LIMIT_LENGTH`).
    public var maxValueBytes = 80 << 20
    /// Longest SQL text and deepest expression (`SQLITE_LIMIT_SQL_LENGTH`, `SQLITE_LIMIT_EXPR_DEPTH`).
    public var maxSQLBytes = 64 << 10
    /// Most virtual-machine instructions one `step()` may run (checked every 10 000), about a second or two of
    /// work: a plain table scan needs tens per row, a runaway statement billions.
    public var maxStepInstructions = 1 << 30

    /// The default caps.
    public init() {}
}

/// The progress handler's state: instructions left to the current step, in units of the handler's period.
final class ProgressBudget {
    static let period: Int32 = 10_000
    let ticksPerStep: Int
    var ticksLeft: Int
    /// True once the handler interrupted a statement.
    var interrupted = false

    init(limits: SQLiteReadLimits) {
        ticksPerStep = max(1, limits.maxStepInstructions / Int(Self.period))
        ticksLeft = ticksPerStep
    }

    func reset() {
        ticksLeft = ticksPerStep
        interrupted = false
    }
}

extension SQLiteConnection {
    /// Opens a database from an untrusted source for reading only: `SQLITE_OPEN_READONLY` with the `immutable`
    /// URI parameter (no locks, no journal or WAL is read or created), `trusted_schema=OFF`, `query_only=ON`,
    /// the caps of `limits`, and a progress handler that interrupts a step running past
    /// `limits.maxStepInstructions`.
    public convenience init(untrustedPath path: String, limits: SQLiteReadLimits = SQLiteReadLimits())
        throws(SQLiteError)
    {
        try self.init(path: path, mode: .readOnlyImmutable)
        let db = try liveHandle("open \(path)")
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Int32(clamping: limits.maxValueBytes))
        sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, Int32(clamping: limits.maxSQLBytes))
        sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 100)
        sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 50)
        sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0)
        let budget = ProgressBudget(limits: limits)
        progress = budget
        sqlite3_progress_handler(
            db, ProgressBudget.period,
            { context in
                guard let context else { return 0 }
                let budget = Unmanaged<ProgressBudget>.fromOpaque(context).takeUnretainedValue()
                budget.ticksLeft -= 1
                guard budget.ticksLeft < 0 else { return 0 }
                budget.interrupted = true
                return 1
            }, Unmanaged.passUnretained(budget).toOpaque())
        try exec("PRAGMA trusted_schema=OFF; PRAGMA query_only=ON;")
    }

    /// The `file:` URI of a path with `immutable=1`, reserved characters percent-encoded.
    static func immutableURI(_ path: String) -> String {
        var out = "file:"
        for b in path.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(b >> 4)], hex[Int(b & 15)]], as: UTF8.self)
            }
        }
        return out + "?immutable=1"
    }

    /// The type (`table`, `view`, `index`, `trigger`) and `CREATE` text of a schema object, or nil when the
    /// database has none of that name.
    public func schemaObject(named name: String) throws(SQLiteError) -> (type: String, sql: String)? {
        let stmt = try prepare("SELECT type, sql FROM sqlite_master WHERE name = ?1 COLLATE NOCASE")
        try stmt.bind(1, text: name)
        guard try stmt.step() else { return nil }
        let found = (stmt.text(at: 0) ?? "", stmt.text(at: 1) ?? "")
        stmt.finalize()
        return found
    }
}

extension SQLiteError {
    /// True when a progress handler stopped the statement (`SQLITE_INTERRUPT`): it ran past its work limit.
    public var isInterrupted: Bool { primaryCode == SQLITE_INTERRUPT }
    /// True when a string or blob exceeded the connection's length limit (`SQLITE_TOOBIG`).
    public var isTooBig: Bool { primaryCode == SQLITE_TOOBIG }
}
