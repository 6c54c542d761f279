import GeometryAlgorithms
import KartpackCore
import SQLiteStore

/// Streams the features of one feature table of a GeoPackage, row by row in feature-id order (`ORDER BY` the
/// integer primary key: a walk of the table's B-tree, no sort), holding one row at a time.
///
/// Every name from the file (table, columns) reaches SQL only as a quoted identifier
/// (`SQLiteConnection.quotedIdentifier`) or a bound parameter. The table must be a real table (not a view or a
/// virtual table: `gpkg_not_a_table`) with an `INTEGER PRIMARY KEY` (the feature id, `gpkg_no_feature_id`) and
/// its geometry column (`gpkg_no_geometry_column`); the column's `srs_id` must be in `gpkg_spatial_ref_sys`
/// (`gpkg_unknown_srs`).
///
/// Each row becomes a feature or is skipped with a reason (counted in `stats`, reported to the sink with the file,
/// table and fid): a NULL geometry is `null_geometry` (informational, as a Shapefile's null shape); a blob that is
/// not a GeoPackage geometry `bad_geometry_blob`; the empty flag or nothing inside `empty_geometry`; a blob whose
/// SRS id differs from the column's `srs_mismatch` (its coordinates would be read in the wrong CRS); broken WKB
/// `bad_wkb`; then `WKBReader`'s and `WKBGeometry`'s codes; a negative fid is `negative_fid`. The feature's id
/// and its record number are the fid.
public final class GeoPackageReader: FeatureSource {
    /// The layer: name = table name, fields from the table's columns (fid and geometry excluded), bounds from
    /// `gpkg_contents`; `crs` is nil (resolved elsewhere from `srs`).
    public let schema: LayerSchema
    /// The table as listed.
    public let layer: GeoPackageLayer
    /// The `gpkg_spatial_ref_sys` row of the geometry column.
    public let srs: GeoPackageSRS
    /// Live counters.
    public private(set) var stats = ReaderStats()
    /// `name.gpkg table NAME`: how diagnostics name the layer.
    public let label: String
    /// The fid column's name.
    public let fidColumn: String

    /// The file the table is in.
    public let file: GeoPackageFile
    let fields: [GeoPackageField]
    let diagnostics: DiagnosticSink
    let limits: WKBReader.Limits
    var statement: SQLiteStatement?
    var lastFID: Int64?
    var finished = false
    var selectList: String
    var quotedTable: String

    /// Opens `layer` of `file` for reading.
    public init(
        file: GeoPackageFile, layer: GeoPackageLayer, diagnostics: DiagnosticSink,
        limits: WKBReader.Limits = WKBReader.Limits()
    ) throws(GeoPackageError) {
        self.file = file
        self.layer = layer
        self.diagnostics = diagnostics
        self.limits = limits
        let label = "\(file.name) table \(GeoPackageError.quoted(layer.table))"
        self.label = label
        func bad(_ code: ReasonCode, _ reason: String) -> GeoPackageError {
            .badTable(file: file.name, table: layer.table, code: code, reason: reason)
        }
        guard let table = SQLiteConnection.quotedIdentifier(layer.table) else {
            throw bad(.gpkgBadName, "the name holds a NUL character")
        }
        quotedTable = table
        let db = file.db
        var columns: [(name: String, type: String, pk: Int64)] = []
        do {
            guard let object = try db.schemaObject(named: layer.table) else {
                throw bad(.gpkgNotATable, "listed in gpkg_contents but not in the database")
            }
            guard object.type == "table", !object.sql.uppercased().hasPrefix("CREATE VIRTUAL") else {
                throw bad(.gpkgNotATable, "a \(object.type), not a table; Kartpack reads feature tables only")
            }
            let info = try db.prepare("SELECT name, type, pk FROM pragma_table_info(?1)")
            try info.bind(1, text: layer.table)
            while try info.step() {
                columns.append((info.text(at: 0) ?? "", info.text(at: 1) ?? "", info.int64(at: 2)))
            }
            info.finalize()
        } catch let e as GeoPackageError {
            throw e
        } catch let e as SQLiteError {
            throw .sqlite(file: file.name, table: layer.table, fid: nil, error: e)
        } catch {
            throw bad(.gpkgReadFailed, "\(error)")
        }
        let keys = columns.filter { $0.pk > 0 }
        guard keys.count == 1, keys[0].type.uppercased() == "INTEGER" else {
            throw bad(
                .gpkgNoFeatureId,
                "no INTEGER PRIMARY KEY column (the feature id a GeoPackage feature table must have)")
        }
        fidColumn = keys[0].name
        guard let geometry = columns.first(where: { $0.name.lowercased() == layer.geometryColumn.lowercased() })
        else {
            throw bad(
                .gpkgNoGeometryColumn,
                "gpkg_geometry_columns names column \(GeoPackageError.quoted(layer.geometryColumn)), which the "
                    + "table lacks"
            )
        }
        guard let found = try file.srs(layer.srsID) else {
            throw bad(
                .gpkgUnknownSrs,
                "the geometry column's srs_id \(layer.srsID) is not in gpkg_spatial_ref_sys")
        }
        srs = found
        var fields: [GeoPackageField] = []
        var warnings: [Diagnostic] = []
        var select = [fidColumn, geometry.name]
        for c in columns where c.name != fidColumn && c.name != geometry.name {
            let (field, warning) = GeoPackageField.make(name: c.name, declared: c.type)
            if let field {
                fields.append(field)
                select.append(c.name)
                if let warning {
                    warnings.append(Diagnostic(.warning, code: .unknownFieldType, warning, file: label))
                }
            } else {
                warnings.append(
                    Diagnostic(
                        .warning, code: .blobFieldSkipped,
                        warning ?? "field \(c.name) is a BLOB, which tiles cannot carry; not read", file: label))
            }
        }
        var quoted: [String] = []
        for name in select {
            guard let q = SQLiteConnection.quotedIdentifier(name) else {
                throw bad(.gpkgBadName, "a column name holds a NUL character")
            }
            quoted.append(q)
        }
        selectList = quoted.joined(separator: ", ")
        self.fields = fields
        var count = 0
        do {
            let stmt = try db.prepare("SELECT count(*) FROM \(table)")
            if try stmt.step() { count = Int(stmt.int64(at: 0)) }
            stmt.finalize()
        } catch {
            throw .sqlite(file: file.name, table: layer.table, fid: nil, error: error)
        }
        stats.recordsInFile = count
        schema = LayerSchema(
            name: layer.table, geometryKind: layer.geometryKind, sourceShapeType: layer.geometryTypeName,
            fields: fields.map(\.definition), crs: nil, bounds: layer.bounds, recordCount: count,
            encoding: EncodingInfo(name: "UTF-8", origin: "gpkg", detail: "GeoPackage text is UTF-8"))
        for w in file.warnings + warnings { report(w) }
        if count == 0 {
            report(Diagnostic(.warning, code: .emptyLayer, "the table has no rows", file: label))
        }
    }

    private func report(_ d: Diagnostic) {
        stats.warnings[d.code, default: 0] += 1
        diagnostics.report(d)
    }

    /// The next feature, or nil after the last row. Throws `GeoPackageError.sqlite` when SQLite fails (a corrupt
    /// page, a value over the length limit, a row past the work limit), naming the last fid read.
    public func next() throws -> Feature? {
        do {
            while true {
                if finished { return nil }
                if statement == nil {
                    let q = SQLiteConnection.quotedIdentifier(fidColumn) ?? "rowid"
                    statement = try file.db.prepare("SELECT \(selectList) FROM \(quotedTable) ORDER BY \(q)")
                }
                guard let stmt = statement, try stmt.step() else {
                    statement?.finalize()
                    statement = nil
                    finished = true
                    return nil
                }
                stats.recordsRead += 1
                let fid = stmt.int64(at: 0)
                lastFID = fid
                if let feature = feature(stmt, fid: fid) {
                    stats.featuresEmitted += 1
                    return feature
                }
            }
        } catch {
            throw GeoPackageError.sqlite(file: file.name, table: layer.table, fid: lastFID, error: error)
        }
    }

    /// The row's feature, or nil when it was skipped (counted and reported).
    private func feature(_ stmt: SQLiteStatement, fid: Int64) -> Feature? {
        let record = Int(fid)
        let geometry: Geometry
        // SQLite numbers rows from 1, but a writer may store any integer; a negative one is no record number and
        // no tile feature id (MVT ids are unsigned).
        let decoded =
            fid < 0
            ? .skipped(
                code: .negativeFid, message: "fid \(fid) is negative: it cannot be a record number or a feature id")
            : decode(stmt)
        switch decoded {
        case .skipped(let code, let message):
            stats.skipped[code, default: 0] += 1
            diagnostics.report(
                Diagnostic(
                    code == .nullGeometry ? .note : .warning, code: code, message, file: label, record: record))
            return nil
        case .built(let g, let repairs):
            for r in repairs {
                stats.repaired[r.code, default: 0] += 1
                diagnostics.report(Diagnostic(.note, code: r.code, r.message, file: label, record: record))
            }
            geometry = g
        }
        return Feature(
            id: fid >= 0 ? UInt64(fid) : nil, geometry: geometry, properties: properties(stmt, record: record),
            provenance: Provenance(source: label, record: record))
    }

    /// The geometry of the current row (column 1).
    private func decode(_ stmt: SQLiteStatement) -> GeometryAssembly {
        switch stmt.columnType(at: 1) {
        case .null: return .skipped(code: .nullGeometry, message: "NULL geometry")
        case .blob: break
        default:
            return .skipped(
                code: .badGeometryBlob, message: "the geometry is not a blob but \(stmt.columnType(at: 1))")
        }
        let srsID = layer.srsID
        let limits = self.limits
        return stmt.withBlob(at: 1) { blob -> GeometryAssembly in
            do throws(GeometryBlobIssue) {
                let header = try GeoPackageBinaryHeader(blob)
                guard header.srsID == srsID else {
                    throw GeometryBlobIssue(
                        code: .srsMismatch,
                        "the geometry says srs_id \(header.srsID), its column \(srsID); not read in the wrong CRS")
                }
                if header.isEmpty { return .skipped(code: .emptyGeometry, message: "an empty geometry (flag E)") }
                return WKBGeometry.build(try WKBReader.read(blob, from: header.wkbOffset, limits: limits))
            } catch {
                return .skipped(code: error.code, message: error.message)
            }
        }
    }

    /// The attributes of the current row (columns 2…).
    private func properties(_ stmt: SQLiteStatement, record: Int) -> Properties {
        var p = Properties()
        for (k, field) in fields.enumerated() {
            let (value, issue) = field.value(stmt, Int32(k + 2))
            if let issue {
                stats.coercedToNull[issue.code, default: 0] += 1
                diagnostics.report(
                    Diagnostic(
                        .warning, code: issue.code, "field \(field.name): \(issue.message)", file: label,
                        record: record))
            }
            p.append(field.name, value)
        }
        return p
    }

    /// The attributes of the row with fid `fid`, or nil when there is none (for records the reader skipped).
    public func attributes(ofFID fid: Int64) throws -> Properties? {
        do {
            let q = SQLiteConnection.quotedIdentifier(fidColumn) ?? "rowid"
            let stmt = try file.db.prepare("SELECT \(selectList) FROM \(quotedTable) WHERE \(q) = ?1")
            try stmt.bind(1, int64: fid)
            guard try stmt.step() else { return nil }
            var p = Properties()
            for (k, field) in fields.enumerated() { p.append(field.name, field.value(stmt, Int32(k + 2)).value) }
            stmt.finalize()
            return p
        } catch {
            throw GeoPackageError.sqlite(file: file.name, table: layer.table, fid: fid, error: error)
        }
    }
}
