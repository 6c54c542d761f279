#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
public import Gzip
public import KartpackCore

/// Why writing or reading a tile archive failed.
public enum TileArchiveError: KartpackError, Sendable {
    /// The target already exists and the writer was not created with `overwrite: true`.
    case targetExists(path: String)
    /// The output (or a temp file next to it) cannot be created; `errno` is the POSIX error.
    case cannotCreate(path: String, errno: Int32)
    /// A POSIX call failed while writing or publishing (`ENOSPC`, `EIO`, …).
    case io(operation: String, path: String, errno: Int32)
    /// The input archive is missing or unreadable.
    case cannotOpen(path: String, errno: Int32)
    /// A tile arrived out of the writer's declared order (or twice).
    case outOfOrder(previous: TileCoordinate, next: TileCoordinate, order: TileOrder)
    /// The tile address is outside the grid (z 0...31, x and y below 2^z).
    case invalidTile(TileCoordinate)
    /// The tile has no bytes (archives cannot store empty tiles; omit them instead).
    case emptyTile(TileCoordinate)
    /// `finish` was called with no tiles written: an empty package is never published.
    case emptyArchive(path: String)
    /// `write` or `finish` was called after `finish` or `abort`.
    case writerClosed(path: String)
    /// The metadata cannot be written (e.g. a duplicate key, a non-finite number).
    case invalidMetadata(String)
    /// The input is not a valid archive of this kind (garbage, truncated, or beyond a safety cap).
    case invalidArchive(path: String, reason: String)
    /// The archive feature is not supported by this reader (e.g. brotli or zstd internal compression).
    case unsupported(path: String, reason: String)
    /// SQLite failed (MBTiles; the `TileArchive` module makes these from its SQLite errors).
    case sqlite(SQLiteFailure)
    /// Compressing or decompressing failed.
    case gzip(GzipError, context: String)
    /// The written archive failed its self-check before publishing.
    case verificationFailed(path: String, reason: String)

    /// The exit code a run ends with.
    public var exitCode: ExitCode {
        switch self {
        case .targetExists, .cannotCreate: .cantCreate
        case .io: .ioError
        case .cannotOpen: .noInput
        case .invalidArchive, .unsupported: .dataError
        case .sqlite(let e):
            if e.isIOError {
                .ioError
            } else if e.isCantOpen {
                .cantCreate
            } else if e.isCorruptFile {
                .dataError
            } else {
                .software
            }
        case .outOfOrder, .invalidTile, .emptyTile, .writerClosed, .invalidMetadata, .gzip, .verificationFailed:
            .software
        case .emptyArchive: .dataError
        }
    }

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .targetExists(let path):
            "\(path) already exists (pass overwrite to replace it)"
        case .cannotCreate(let path, let errno):
            "cannot create \(path): \(Self.errorText(errno))"
        case .io(let operation, let path, let errno):
            "\(operation) failed for \(path): \(Self.errorText(errno))"
        case .cannotOpen(let path, let errno):
            "cannot open \(path): \(Self.errorText(errno))"
        case .outOfOrder(let previous, let next, let order):
            "tile \(next) arrived after \(previous), out of \(order.rawValue) order"
        case .invalidTile(let key):
            "tile \(key) is outside the tile grid"
        case .emptyTile(let key):
            "tile \(key) has no bytes"
        case .emptyArchive(let path):
            "no tiles were written; \(path) is not published"
        case .writerClosed(let path):
            "the writer for \(path) is already finished or aborted"
        case .invalidMetadata(let why):
            "invalid metadata: \(why)"
        case .invalidArchive(let path, let reason):
            "\(path) is not a valid archive: \(reason)"
        case .unsupported(let path, let reason):
            "\(path): unsupported: \(reason)"
        case .sqlite(let e):
            e.description
        case .gzip(let e, let context):
            "\(context): \(e.description)"
        case .verificationFailed(let path, let reason):
            "self-check of \(path) failed: \(reason)"
        }
    }

    static func errorText(_ code: Int32) -> String {
        guard let p = strerror(code) else { return "errno \(code)" }
        return "\(String(cString: p)) (errno \(code))"
    }
}

/// A failed SQLite call as `TileArchiveError` carries it: SQLite's own error type lives in the SQLite wrapper,
/// which this C-free module does not depend on (`TileArchive` converts).
public struct SQLiteFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the failure means for the exit code.
    public enum Category: Sendable, Hashable {
        /// The disk or file system failed (`SQLITE_IOERR*`, `SQLITE_FULL`).
        case io
        /// The file could not be opened (`SQLITE_CANTOPEN`).
        case cantOpen
        /// Not a database, or corrupt (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
        case corruptFile
        /// Anything else (a misuse, a constraint).
        case other
    }

    /// The extended result code.
    public var code: Int32
    /// What the code means for the exit code.
    public var category: Category
    /// The full one-line text (code name, message, statement).
    public var description: String

    /// Creates a failure.
    public init(code: Int32, category: Category, description: String) {
        self.code = code
        self.category = category
        self.description = description
    }

    /// True for failures of the disk or file system.
    public var isIOError: Bool { category == .io }
    /// True when the file could not be opened.
    public var isCantOpen: Bool { category == .cantOpen }
    /// True when the file is not a database or is corrupt.
    public var isCorruptFile: Bool { category == .corruptFile }
}
