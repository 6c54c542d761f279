internal import CShapelib
import GeometryAlgorithms
import KartpackCore

/// Streams the features of one Shapefile (`.shp` + `.shx` + `.dbf` + `.prj` + `.cpg`), record by record.
///
/// Reading goes through shapelib 1.5 (`SHPReadObject`, `DBFReadStringAttribute`), but every structure shapelib
/// trusts is checked here first (see hostile-inputs.md §1–3):
///
/// - The `.shp` must be at least 100 bytes with magic 9994 and at most 4 GiB; otherwise the file is rejected.
/// - A missing, truncated or bad-magic `.shx` is rebuilt **in memory** by scanning the `.shp` record headers
///   (`rebuilt_index`, warned once); nothing is ever written next to the input. shapelib sees the index through
///   custom `SAHooks` serving virtual paths (see `ShapelibIO`), not through a temp file.
/// - Each index entry is validated (offset ≥ 100, length ≥ 4, offset + 8 + length ≤ `.shp` size); bad entries are
///   skipped as `bad_index_entry`. An entry that would fit the file the `.shp` header declares but runs past the
///   real end is skipped as `truncated` (plus one `truncated_at` warning per file). Record numbers in the record
///   headers are ignored, as GDAL does: a mismatch is read anyway and warned once per file
///   (`record_number_mismatch`, with a count), so a writer that numbered records from 0 loses nothing.
/// - Coordinates must be finite (`non_finite_coordinate`) and within ±`maxAbsoluteCoordinate`
///   (`out_of_domain`) before anything else sees them; records over `maxVertices` are `too_complex`.
/// - Each record is handled by its own shape type: null shapes → `null_geometry`; a type of another family than the
///   file's → `type_mismatch`; unknown codes → `unknown_shape_type`; MultiPatch records are read as polygons
///   the way GDAL reads them (`MultiPatchPolygons`, repair `multipatch_as_polygons`); part layouts shapelib
///   accepts but that are broken (`panPartStart[0] ≠ 0`, vertices without parts, empty parts) →
///   `bad_part_layout`.
/// - Consecutive duplicate points are removed (`removed_duplicates`). Polygon rings are assigned to shells by
///   containment and oriented the ESRI way (`PolygonAssembler`); zero-area rings are dropped (`dropped_sliver`).
/// - File-level warnings that can occur per record (`record_number_mismatch`, `length_mismatch`, `truncated_at`)
///   are reported once per file, with a count, when the last record has been read.
/// - Z and M values are neither checked nor kept: tiles are two-dimensional (a NaN Z, as some writers store "no
///   data", loses nothing).
/// - DBF values are read as raw text and parsed strictly without locale (`DBFValueParser`); bad values become null
///   and are counted per reason. Deleted rows skip the whole record (`deleted_in_source`).
/// - Encoding: an explicit `ShapefileReadOptions.encoding` always wins; otherwise the `.cpg`, then the DBF
///   language-driver byte; with neither (LDID 0 or an id no code page is known for), the text decides
///   (`EncodingDetector`): UTF-8 when valid, otherwise the legacy code page that reads it cleanly, refused when
///   none or two of different scripts do. A garbled `.cpg` is rejected.
///
/// Memory stays at one record: each `SHPObject` is destroyed after conversion. A reader is single-threaded; use one
/// reader per thread. After the last feature, `stats.recordsInFile == stats.recordsRead ==
/// stats.featuresEmitted + stats.totalSkipped`.
public final class ShapefileReader: FeatureSource {
    /// The layer: name = file base name, fields from the `.dbf`, bounds from the `.shp` header; `crs` is nil (the
    /// CRS is resolved elsewhere from `prjText`).
    public let schema: LayerSchema
    /// The raw `.prj` text (nil when missing or larger than `maxPRJBytes`); decoded as UTF-8, or Latin-1 when it
    /// is not valid UTF-8.
    public let prjText: String?
    /// The files this reader uses.
    public let files: ShapefileSet
    /// Live counters.
    public internal(set) var stats: ReaderStats

    /// `.prj` files larger than this are ignored (with a `prj_too_large` warning).
    public static let maxPRJBytes = 64 * 1024

    /// Coordinates whose absolute value exceeds this are skipped as `out_of_domain`. No coordinate reference system
    /// in use comes near it (the Earth's circumference is 4·10⁷ m or 1.3·10⁸ US feet); such values are garbage,
    /// and near 1e308 they make GEOS simplification run for minutes.
    public static let maxAbsoluteCoordinate = 1e12

    /// A per-file warning gathered while reading and reported once, with a count, after the last record.
    struct PendingWarning {
        var code: ReasonCode
        var count: Int
        var firstRecord: Int
        var firstOffset: Int?
        var firstDetail: String
        var file: String
    }

    /// The `.shp` and `.dbf` descriptors; shapelib's handles borrow them, so they live as long as the reader.
    let shpFile: InputFile
    let dbfFile: InputFile?
    let shp: SHPHandleOwner
    let dbf: DBFHandleOwner?
    let index: ShxIndex
    /// Declared content lengths of records whose length ran past the end of the file but whose counts fit
    /// (`index` holds the cut length), by record index.
    let overrunLengths: [Int: Int]
    let fileFamily: ShapeType.Family?
    let fields: [FieldReader]
    let decoder: TextDecoder?
    let dbfRows: Int
    let diagnostics: DiagnosticSink
    let shpName: String
    let dbfName: String
    /// The memo file of `M` fields, when there is one.
    let memo: MemoFile?
    /// True when the `.dbf` has memo fields but no memo file was found (their values are null, counted).
    let memoMissing: Bool
    /// Bytes per `.dbf` record (deletion flag included).
    let dbfRecordLength: Int
    /// The `.shp` length the file header declares, in bytes.
    let declaredSHPLength: Int
    let maxVertices: Int
    var cursor = 0
    /// Decides from a record's stored box, before the record is decoded, whether `next()` reads it
    /// (`ShapefileReader+RecordBoxes.swift`); nil reads every record.
    public var keepsRecordBox: ((Bounds) -> Bool)?
    /// Records `keepsRecordBox` left unread: not counted in `stats` (the caller counts them as its own).
    public internal(set) var recordsLeftByBox = 0
    /// Per-file warnings in first-occurrence order (an array: output must be deterministic).
    var pending: [PendingWarning] = []
    var finished = false

    /// Opens the Shapefile at `path` (a `.shp` file, any extension case).
    public convenience init(
        path: String, options: ShapefileReadOptions = .init(), diagnostics: DiagnosticSink
    ) throws(ShapefileError) {
        let sets = try ShapefileLocator.shapefiles(at: path)
        guard sets.count == 1, let set = sets.first else {
            throw .unreadable(path: path, reason: "\(sets.count) Shapefiles in this folder; pass one .shp file")
        }
        try self.init(files: set, options: options, diagnostics: diagnostics)
    }

    /// Opens a Shapefile from the files `ShapefileLocator` found.
    public init(
        files: ShapefileSet, options: ShapefileReadOptions = .init(), diagnostics: DiagnosticSink
    ) throws(ShapefileError) {
        self.files = files
        self.diagnostics = diagnostics
        let shpFile = try InputFile(path: files.shp)
        let shpName = shpFile.name
        self.shpFile = shpFile
        self.shpName = shpName
        var warnings: [Diagnostic] = []
        func warn(_ code: ReasonCode, _ message: String, file: String) {
            warnings.append(Diagnostic(.warning, code: code, message, file: file))
        }

        // .shp header.
        guard shpFile.size >= 100 else {
            throw .notAShapefile(file: shpName, reason: "it is \(shpFile.size) bytes, shorter than the 100-byte header")
        }
        guard shpFile.size <= Int(UInt32.max) else {
            throw .notAShapefile(file: shpName, reason: "it is larger than 4 GiB (\(shpFile.size) bytes)")
        }
        let header = try shpFile.bytes(at: 0, count: 100)
        guard header.count == 100 else { throw .ioError(file: shpName, offset: 0, reason: "short read of the header") }
        guard header.int32BE(0) == 9994 else {
            throw .notAShapefile(file: shpName, reason: "bad magic number \(header.int32BE(0)) (expected 9994)")
        }
        let headerType = header.int32LE(32)
        let declaredLength = Int(UInt32(bitPattern: header.int32BE(24))) * 2
        declaredSHPLength = declaredLength
        maxVertices = options.maxVertices
        if declaredLength != shpFile.size {
            warn(
                .lengthMismatch,
                "header says the file is \(declaredLength) bytes, it has \(shpFile.size); using the real size",
                file: shpName)
        }

        // Index: the .shx when usable, otherwise rebuilt from the .shp.
        var index: ShxIndex?
        var rebuildReason: String?
        if let shxPath = files.shx {
            let shx = try InputFile(path: shxPath)
            guard shx.size <= 100 + 8 * ShxIndex.maxRecords else {
                throw .badIndex(file: shx.name, reason: "more than \(ShxIndex.maxRecords) records")
            }
            let shxBytes = try shx.bytes(at: 0, count: shx.size)
            do throws(ShxIndex.Problem) {
                let (parsed, lengthWarning) = try ShxIndex.parse(shxBytes)
                index = parsed
                if let lengthWarning { warn(.lengthMismatch, lengthWarning, file: shx.name) }
            } catch {
                switch error {
                case .unusable(let why): rebuildReason = "\(shx.name) is unusable: \(why)"
                }
            }
        } else {
            rebuildReason = "no .shx file"
        }
        if index == nil {
            index = try ShxIndex.rebuild(from: shpFile)
        }
        guard var index else { throw .badIndex(file: shpName, reason: "no index") }
        if rebuildReason == nil {
            // A .shx that stops early hides records: say so (the index is still trusted, as GDAL does).
            var end = 100
            // A record cut by the end of the file covers the bytes up to it (it is reported as truncated).
            for k in 0..<index.count where index.offsets[k] >= 100 && index.offsets[k] < shpFile.size {
                end = max(end, min(index.offsets[k] + 8 + index.lengths[k], shpFile.size))
            }
            if shpFile.size - end >= 12 {
                warn(
                    .unindexedBytes,
                    "\(shpFile.size - end) bytes after the last indexed record are not in the .shx; they are not read",
                    file: shpName)
            }
        }
        guard index.count <= ShxIndex.maxRecords else {
            throw .badIndex(file: shpName, reason: "more than \(ShxIndex.maxRecords) records")
        }
        overrunLengths = try index.clipLastOverrun(shp: shpFile)
        self.index = index

        // The layer's shape type: the header's, or, when the header names none (0) or an unknown one, the type of
        // the first record that has a known one (GDAL reads such files by their records too).
        var fileType = headerType
        if ShapeType.describe(headerType) == nil {
            if let found = try index.firstKnownShapeType(shp: shpFile) {
                fileType = found
                warn(
                    .headerShapeTypeFromRecords,
                    "the header's shape type is \(headerType == 0 ? "Null" : "unknown (\(headerType))") but the "
                        + "records "
                        + "are \(ShapeType.name(found)); the layer is read as \(ShapeType.name(found))", file: shpName)
            } else if headerType != 0 {
                throw .unsupportedShapeType(code: headerType, file: shpName)
            }
        }
        let description = ShapeType.describe(fileType)
        fileFamily = description?.family

        // Open through the virtual file hooks.
        let base = ShapelibIO.makeVirtualBase()
        var hooks = ShapelibIO.makeHooks()
        _ = ShapelibIO.drainMessages()
        ShapelibIO.register(base + ".shp", .descriptor(shpFile.fd, size: shpFile.size))
        ShapelibIO.register(base + ".shx", .memory(index.shxBytes(shpHeader: header, shpSize: shpFile.size)))
        let shpHandle = SHPOpenLL(base + ".shp", "rb", &hooks)
        ShapelibIO.unregister(base + ".shp")
        ShapelibIO.unregister(base + ".shx")
        guard let shpHandle else {
            let messages = ShapelibIO.drainMessages()
            if let e = OpenFileLimit.exhaustedNow(), let exhausted = ShapefileError.exhausted(files.shp, errno: e) {
                throw exhausted
            }
            throw .libraryError(
                file: shpName, message: messages.isEmpty ? "SHPOpen failed" : messages.joined(separator: "; "))
        }
        let shp = SHPHandleOwner(shpHandle)
        self.shp = shp
        var entities: Int32 = 0
        var type: Int32 = 0
        var lo = [Double](repeating: 0, count: 4)
        var hi = [Double](repeating: 0, count: 4)
        SHPGetInfo(shpHandle, &entities, &type, &lo, &hi)
        guard Int(entities) == index.count else {
            throw .badIndex(file: shpName, reason: "shapelib sees \(entities) records, the index has \(index.count)")
        }

        // .dbf
        let table: AttributeTable
        if let dbfPath = files.dbf {
            table = try AttributeTable(
                path: dbfPath, files: files, options: options, virtualBase: base, hooks: &hooks,
                shapeRecords: index.count, shpName: shpName, warn: { warn($0, $1, file: $2) })
        } else {
            table = AttributeTable()
            warn(.noAttributes, "no .dbf file; features have no attributes", file: shpName)
        }
        self.dbf = table.handle
        self.dbfFile = table.file
        self.fields = table.fields
        self.decoder = table.decoder
        self.dbfRows = table.rows
        self.dbfName = table.name
        self.memo = table.memo
        self.memoMissing = table.memoMissing
        self.dbfRecordLength = table.recordLength

        prjText = try Self.readPRJ(files.prj) { warn($0, $1, file: $2) }

        var bounds: Bounds?
        let box = Bounds(
            minX: header.doubleLE(36), minY: header.doubleLE(44), maxX: header.doubleLE(52), maxY: header.doubleLE(60))
        if !box.isEmpty, box.minX.isFinite, box.minY.isFinite, box.maxX.isFinite, box.maxY.isFinite { bounds = box }
        schema = LayerSchema(
            name: files.baseName, geometryKind: description.flatMap { ShapeType.layerKind($0.family) },
            sourceShapeType: ShapeType.name(fileType), fields: table.schemaFields, crs: nil, bounds: bounds,
            recordCount: index.count, encoding: table.encoding)
        stats = ReaderStats(recordsInFile: index.count, dbfRecordCount: files.dbf == nil ? nil : table.rows)

        if let rebuildReason {
            stats.repaired[.rebuiltIndex, default: 0] += 1
            warnings.insert(
                Diagnostic(
                    .warning, code: .rebuiltIndex,
                    "\(rebuildReason); index of \(index.count) record(s) rebuilt in memory from the .shp", file: shpName
                ),
                at: 0)
        }
        if index.count == 0 { warn(.emptyLayer, "the file has no records", file: shpName) }
        for w in warnings {
            if w.code != .rebuiltIndex { stats.warnings[w.code, default: 0] += 1 }
            diagnostics.report(w)
        }
    }

    /// The next feature, or nil at the end. Bad records are skipped and counted, never thrown; a throw means an
    /// I/O failure.
    public func next() throws(ShapefileError) -> Feature? {
        while cursor < index.count {
            let i = cursor
            cursor += 1
            stats.recordsRead += 1
            if let feature = try readRecord(i) {
                stats.featuresEmitted += 1
                return feature
            }
        }
        if !finished {
            finished = true
            for w in pending {
                let more = w.count > 1 ? " (\(w.count) records in all)" : ""
                diagnostics.report(
                    Diagnostic(
                        .warning, code: w.code, w.firstDetail + more, file: w.file, record: w.firstRecord,
                        offset: w.firstOffset))
            }
        }
        return nil
    }

    // MARK: - Reporting

    func skip(_ code: ReasonCode, _ message: String, record: Int, offset: Int?, severity: Severity = .warning) {
        stats.skipped[code, default: 0] += 1
        diagnostics.report(Diagnostic(severity, code: code, message, file: shpName, record: record, offset: offset))
    }

    func repaired(_ repair: GeometryRepair, record: Int, offset: Int) {
        stats.repaired[repair.code, default: 0] += 1
        diagnostics.report(
            Diagnostic(.note, code: repair.code, repair.message, file: shpName, record: record, offset: offset))
    }

    /// Counts a per-file warning now; one diagnostic (the first occurrence's detail plus the count) is reported
    /// after the last record.
    func warnOncePerFile(_ code: ReasonCode, _ detail: String, file: String, record: Int, offset: Int?) {
        stats.warnings[code, default: 0] += 1
        if let k = pending.firstIndex(where: { $0.code == code && $0.file == file }) {
            pending[k].count += 1
        } else {
            pending.append(
                PendingWarning(
                    code: code, count: 1, firstRecord: record, firstOffset: offset, firstDetail: detail, file: file))
        }
    }

    func warnRecord(_ code: ReasonCode, _ message: String, file: String, record: Int, offset: Int? = nil) {
        stats.warnings[code, default: 0] += 1
        diagnostics.report(Diagnostic(.warning, code: code, message, file: file, record: record, offset: offset))
    }
}
