import KartpackCore
import SQLiteStore

/// Why a GeoPackage, or one of its feature tables, cannot be read at all. Every case names the file (and the
/// table where there is one) and ends its description with the reason code in brackets (docs/diagnostics.md).
/// Record-level problems are not errors: they are skipped and counted (`ReaderStats`).
public enum GeoPackageError: KartpackError, Equatable {
    /// The path does not exist.
    case fileNotFound(path: String)
    /// A symbolic link, FIFO, device, socket or folder where a `.gpkg` file was expected.
    case notARegularFile(path: String, kind: String)
    /// Not an SQLite database, or one without the GeoPackage tables (`gpkg_contents`, `gpkg_geometry_columns`,
    /// `gpkg_spatial_ref_sys`).
    case notAGeoPackage(file: String, reason: String)
    /// A non-empty `-wal` (or hot `-journal`) lies beside the file: changes another program has not yet written
    /// into the file itself, which a read-only, immutable open would miss.
    case pendingChanges(file: String, sidecar: String, size: Int)
    /// `--layer` / a pipeline's `layer` names no feature table of the file.
    case noSuchTable(file: String, table: String, tables: [String])
    /// The file holds no feature table (only attributes or tiles).
    case noFeatureTables(file: String)
    /// A feature table that cannot be read: not a real table, no integer primary key, no geometry column, an
    /// SRS id missing from `gpkg_spatial_ref_sys`, a name SQL cannot carry.
    case badTable(file: String, table: String, code: ReasonCode, reason: String)
    /// SQLite failed while the file was read (corrupt pages, a value over the length limit, a query past its
    /// work limit); `fid` is the last feature read when known.
    case sqlite(file: String, table: String?, fid: Int64?, error: SQLiteError)

    /// `.noInput` for a missing file, `.ioError` for disk failures, `.dataError` otherwise.
    public var exitCode: ExitCode {
        switch self {
        case .fileNotFound: .noInput
        case .sqlite(_, _, _, let e) where e.isIOError: .ioError
        default: .dataError
        }
    }

    /// The stable reason code (docs/diagnostics.md).
    public var code: ReasonCode {
        switch self {
        case .fileNotFound: .fileNotFound
        case .notARegularFile: .notARegularFile
        case .notAGeoPackage: .notAGeopackage
        case .pendingChanges: .gpkgPendingChanges
        case .noSuchTable: .noSuchTable
        case .noFeatureTables: .noFeatureTables
        case .badTable(_, _, let code, _): code
        case .sqlite(_, _, _, let e): e.isIOError ? .ioError : .gpkgReadFailed
        }
    }

    /// One line naming the file, the table and the reason, ending with the code in brackets.
    public var description: String { text + " [\(code)]" }

    private var text: String {
        switch self {
        case .fileNotFound(let path): "\(path): no such file"
        case .notARegularFile(let path, let kind): "\(path): refusing to read a \(kind); inputs must be regular files"
        case .notAGeoPackage(let file, let reason): "\(file): not a GeoPackage: \(reason)"
        case .pendingChanges(let file, let sidecar, let size):
            "\(file): \(sidecar) holds \(size) bytes of changes not yet written into the file, which Kartpack (reading "
                + "the file read-only, as it is) would miss; open the file once in QGIS or GDAL (ogrinfo) to merge "
                + "them, or run sqlite3 on it with PRAGMA wal_checkpoint(TRUNCATE)"
        case .noSuchTable(let file, let table, let tables):
            "\(file): no feature table \(Self.quoted(table)); the file has "
                + (tables.isEmpty ? "none" : tables.map(Self.quoted).joined(separator: ", "))
        case .noFeatureTables(let file):
            "\(file): no feature table in gpkg_contents (data_type 'features' with a gpkg_geometry_columns row)"
        case .badTable(let file, let table, _, let reason): "\(file): table \(Self.quoted(table)): \(reason)"
        case .sqlite(let file, let table, let fid, let e):
            "\(file): "
                + (table.map { "table \(Self.quoted($0)): " } ?? "") + (fid.map { "after fid \($0): " } ?? "")
                + "SQLite: \(e.message)" + (e.isInterrupted ? " (a query ran past the work limit)" : "")
        }
    }

    /// A table name as messages show it: in double quotes, control characters escaped.
    static func quoted(_ name: String) -> String {
        var out = "\""
        for u in name.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where u.value < 0x20 || (0x7F...0x9F).contains(u.value):
                out += "\\u{\(String(u.value, radix: 16))}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
