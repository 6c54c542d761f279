import Foundation
import KartpackCore
import SQLiteStore

/// One feature table of a GeoPackage as `gpkg_contents` and `gpkg_geometry_columns` list it.
public struct GeoPackageLayer: Sendable, Hashable {
    /// `table_name`: the layer's name. Untrusted text: only ever used quoted (`SQLiteConnection.quotedIdentifier`)
    /// or as a bound parameter.
    public var table: String
    /// `column_name` of the geometry.
    public var geometryColumn: String
    /// `geometry_type_name` (`POINT`, `MULTIPOLYGON`, `GEOMETRY`, …), upper-cased.
    public var geometryTypeName: String
    /// `srs_id` of the column.
    public var srsID: Int32
    /// `z` and `m`: 0 prohibited, 1 mandatory, 2 optional.
    public var z: Int
    public var m: Int
    /// The bounds `gpkg_contents` declares (in the layer's CRS), when all four are set.
    public var bounds: Bounds?

    /// The kind of feature the column declares; nil for `GEOMETRY`, `GEOMETRYCOLLECTION` and other names.
    public var geometryKind: GeometryKind? {
        switch geometryTypeName {
        case "POINT": .point
        case "MULTIPOINT": .multiPoint
        case "LINESTRING": .lineString
        case "MULTILINESTRING": .multiLineString
        case "POLYGON": .polygon
        case "MULTIPOLYGON": .multiPolygon
        default: nil
        }
    }
}

/// An open GeoPackage (OGC 12-128r18, GeoPackage 1.2+): its feature tables and its spatial reference systems.
///
/// Opening checks, in order: the path is a regular file (links, FIFOs, devices refused); its first 16 bytes are
/// SQLite's magic; no non-empty `-wal` or `-journal` lies beside it (`gpkg_pending_changes`: the file is read
/// `immutable`, so those changes would be missed unseen); then the file is opened as every untrusted database is
/// (`SQLiteConnection(untrustedPath:)`: read-only, `immutable=1` — no lock, no journal, no WAL read or created —
/// `trusted_schema=OFF`, `query_only=ON`, value and work limits); `gpkg_contents`, `gpkg_geometry_columns` and
/// `gpkg_spatial_ref_sys` must be tables. An `application_id` other than `GPKG` (or 1.0's `GP10`, `GP11`) is read
/// anyway with a warning (`gpkg_application_id`), as GDAL does.
public final class GeoPackageFile {
    /// The path as given.
    public let path: String
    /// The file name, for messages.
    public let name: String
    /// Feature tables in `gpkg_contents` order (its rowid: the order the writer added them).
    public let layers: [GeoPackageLayer]
    /// Warnings found while opening (`gpkg_application_id`).
    public let warnings: [Diagnostic]
    let db: SQLiteConnection

    /// `GPKG`, `GP10`, `GP11` as `PRAGMA application_id` values.
    static let applicationIDs: Set<Int64> = [0x4750_4B47, 0x4750_3130, 0x4750_3131]

    /// True when `path` ends in `.gpkg` (any case): the one rule telling a GeoPackage input from a Shapefile one.
    public static func isGeoPackagePath(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".gpkg")
    }

    /// Opens the file and lists its feature tables.
    public init(path: String) throws(GeoPackageError) {
        self.path = path
        let name = (path as NSString).lastPathComponent
        self.name = name
        try Self.checkFile(path, name: name)
        do {
            db = try SQLiteConnection(untrustedPath: path)
        } catch {
            if error.isCorruptFile { throw .notAGeoPackage(file: name, reason: error.message) }
            throw .sqlite(file: name, table: nil, fid: nil, error: error)
        }
        var warnings: [Diagnostic] = []
        do {
            for table in ["gpkg_contents", "gpkg_geometry_columns", "gpkg_spatial_ref_sys"] {
                guard let object = try db.schemaObject(named: table) else {
                    throw GeoPackageError.notAGeoPackage(file: name, reason: "it has no \(table) table")
                }
                guard object.type == "table" else {
                    throw GeoPackageError.notAGeoPackage(
                        file: name, reason: "\(table) is a \(object.type), not a table")
                }
            }
            let idStatement = try db.prepare("PRAGMA application_id")
            let appID = try idStatement.step() ? idStatement.int64(at: 0) : 0
            idStatement.finalize()
            if !Self.applicationIDs.contains(appID) {
                warnings.append(
                    Diagnostic(
                        .warning, code: .gpkgApplicationId,
                        "application_id is \(appID), not GPKG (\(0x4750_4B47)); read as a GeoPackage anyway",
                        file: name))
            }
            layers = try Self.listLayers(db)
        } catch let e as GeoPackageError {
            throw e
        } catch let e as SQLiteError {
            throw .sqlite(file: name, table: nil, fid: nil, error: e)
        } catch {
            throw .notAGeoPackage(file: name, reason: "\(error)")
        }
        self.warnings = warnings
    }

    /// The checks made before SQLite sees the file (see the type).
    static func checkFile(_ path: String, name: String) throws(GeoPackageError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { throw .fileNotFound(path: path) }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFLNK: throw .notARegularFile(path: path, kind: "symbolic link")
        case S_IFDIR: throw .notARegularFile(path: path, kind: "folder")
        case S_IFIFO: throw .notARegularFile(path: path, kind: "FIFO")
        default: throw .notARegularFile(path: path, kind: "device or socket")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .notAGeoPackage(file: name, reason: "it cannot be opened")
        }
        let head = (try? handle.read(upToCount: 16)) ?? nil
        try? handle.close()
        guard let head, head == Data("SQLite format 3\u{0}".utf8) else {
            throw .notAGeoPackage(file: name, reason: "it is not an SQLite database (no \"SQLite format 3\" header)")
        }
        for suffix in ["-wal", "-journal"] {
            var side = stat()
            if lstat(path + suffix, &side) == 0, side.st_size > 0 {
                throw .pendingChanges(file: name, sidecar: name + suffix, size: Int(side.st_size))
            }
        }
    }

    static func listLayers(_ db: SQLiteConnection) throws -> [GeoPackageLayer] {
        let stmt = try db.prepare(
            """
            SELECT c.table_name, g.column_name, g.geometry_type_name, g.srs_id, g.z, g.m,
                   c.min_x, c.min_y, c.max_x, c.max_y
            FROM gpkg_contents AS c JOIN gpkg_geometry_columns AS g ON g.table_name = c.table_name
            WHERE c.data_type = 'features' ORDER BY c.rowid
            """)
        var out: [GeoPackageLayer] = []
        while try stmt.step() {
            var bounds: Bounds?
            if (6...9).allSatisfy({ stmt.columnType(at: $0) != .null }) {
                let b = Bounds(
                    minX: stmt.double(at: 6), minY: stmt.double(at: 7), maxX: stmt.double(at: 8),
                    maxY: stmt.double(at: 9))
                if [b.minX, b.minY, b.maxX, b.maxY].allSatisfy(\.isFinite) { bounds = b }
            }
            out.append(
                GeoPackageLayer(
                    table: stmt.text(at: 0) ?? "", geometryColumn: stmt.text(at: 1) ?? "",
                    geometryTypeName: (stmt.text(at: 2) ?? "").uppercased(),
                    srsID: Int32(clamping: stmt.int64(at: 3)), z: Int(clamping: stmt.int64(at: 4)),
                    m: Int(clamping: stmt.int64(at: 5)), bounds: bounds))
        }
        stmt.finalize()
        return out
    }

    /// The feature table `name`: the exact name, else the one table whose name matches ignoring case (SQLite's
    /// own rule for table names). Throws `no_such_table` listing the tables.
    public func layer(named name: String) throws(GeoPackageError) -> GeoPackageLayer {
        if let exact = layers.first(where: { $0.table == name }) { return exact }
        let folded = layers.filter { $0.table.lowercased() == name.lowercased() }
        if folded.count == 1 { return folded[0] }
        throw .noSuchTable(file: self.name, table: name, tables: layers.map(\.table))
    }

    /// The rows of table `table` (`count(*)`), or nil when it is no real table of the file: what a layer that
    /// cannot be read still counts, so its rows are reported as rejected.
    public func rowCount(_ table: String) -> Int? {
        guard let quoted = SQLiteConnection.quotedIdentifier(table),
            let object = try? db.schemaObject(named: table), object.type == "table",
            !object.sql.uppercased().hasPrefix("CREATE VIRTUAL"),
            let stmt = try? db.prepare("SELECT count(*) FROM \(quoted)"), (try? stmt.step()) == true
        else { return nil }
        defer { stmt.finalize() }
        return Int(stmt.int64(at: 0))
    }

    /// The `gpkg_spatial_ref_sys` row of `srsID`, or nil when there is none.
    public func srs(_ srsID: Int32) throws(GeoPackageError) -> GeoPackageSRS? {
        do {
            let stmt = try db.prepare(
                """
                SELECT srs_name, organization, organization_coordsys_id, definition
                FROM gpkg_spatial_ref_sys WHERE srs_id = ?1
                """)
            try stmt.bind(1, int64: Int64(srsID))
            guard try stmt.step() else { return nil }
            let row = GeoPackageSRS(
                srsID: srsID, name: stmt.text(at: 0) ?? "", organization: stmt.text(at: 1) ?? "",
                organizationCode: stmt.int64(at: 2), definition: stmt.text(at: 3) ?? "")
            stmt.finalize()
            return row
        } catch {
            throw .sqlite(file: name, table: nil, fid: nil, error: error)
        }
    }
}
