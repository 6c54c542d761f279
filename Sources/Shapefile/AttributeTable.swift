internal import CShapelib
import KartpackCore

/// The `.dbf` side of a Shapefile as `ShapefileReader` opens it: shapelib's handle over the checked header, the
/// code page its text is read in, the fields to read (renamed where names repeat) and the memo file of `M` fields.
/// Every problem found on the way is a warning through `warn` (code, message, file).
struct AttributeTable {
    var handle: DBFHandleOwner?
    /// The `.dbf`'s descriptor; shapelib's handle borrows it.
    var file: InputFile?
    var name = ""
    var fields: [FieldReader] = []
    var schemaFields: [FieldDefinition] = []
    var encoding: EncodingInfo?
    var decoder: TextDecoder?
    var rows = 0
    /// The memo file of `M` fields, when there is one.
    var memo: MemoFile?
    /// True when the `.dbf` has memo fields but no memo file was found (their values are null, counted).
    var memoMissing = false
    /// Bytes per record (deletion flag included).
    var recordLength = 0

    /// No `.dbf`: features have no attributes.
    init() {}

    /// Opens the `.dbf` of `files` through shapelib's virtual file `base`.dbf, after checking its header
    /// (`DBFHeader`); `shapeRecords` is the `.shp`'s record count, to say when rows and shapes do not pair up.
    init(
        path: String, files: ShapefileSet, options: ShapefileReadOptions, virtualBase base: String,
        hooks: inout SAHooks, shapeRecords: Int, shpName: String, warn: (ReasonCode, String, String) -> Void
    ) throws(ShapefileError) {
        let dbfFile = try InputFile(path: path)
        file = dbfFile
        name = dbfFile.name
        let header = try DBFHeader(file: dbfFile)
        for w in header.warnings { warn(w.code, w.message, name) }
        // A .dbf with no field and no record (record length 0) is not handed to shapelib: nothing to read.
        let hasRows = header.recordLength > 0
        ShapelibIO.register(base + ".dbf", header.shapelibSource(fd: dbfFile.fd, size: dbfFile.size))
        let dbfHandle = hasRows ? DBFOpenLL(base + ".dbf", "rb", &hooks) : nil
        ShapelibIO.unregister(base + ".dbf")
        let messages = ShapelibIO.drainMessages()
        if let dbfHandle {
            handle = DBFHandleOwner(dbfHandle)
            guard Int(DBFGetFieldCount(dbfHandle)) >= header.fields.count,
                Int(dbfHandle.pointee.nRecordLength) == header.recordLength,
                Int(dbfHandle.pointee.nHeaderLength) == header.shapelibHeaderLength
            else {
                throw .badDBFHeader(file: name, reason: "shapelib reads the header differently from its descriptors")
            }
        } else if hasRows {
            if let e = OpenFileLimit.exhaustedNow(), let exhausted = ShapefileError.exhausted(path, errno: e) {
                throw exhausted
            }
            throw .badDBFHeader(
                file: name,
                reason: "shapelib could not open it" + (messages.isEmpty ? "" : ": " + messages.joined(separator: "; "))
            )
        }
        rows = header.recordCount
        recordLength = header.recordLength

        let (dec, info) = try ShapefileReader.resolveEncoding(
            options: options, cpgPath: files.cpg, ldid: header.languageDriver, dbfName: name,
            sample: { () throws(ShapefileError) in try DBFTextSample(file: dbfFile, header: header) }, warn: warn)
        decoder = dec
        encoding = info
        readFields(header, decoder: dec, warn: warn)

        let memoNames = fields.filter { if case .memo = $0.kind { true } else { false } }.map(\.name)
        if !memoNames.isEmpty {
            if let memoPath = files.memo {
                memo = try MemoFile(file: InputFile(path: memoPath))
            } else {
                memoMissing = true
                warn(
                    .memoFileMissing,
                    "memo field(s) \(memoNames.joined(separator: ", ")) need a .dbt or .fpt file next to \(name), "
                        + "and there is none; their values are null", name)
            }
        }
        if rows < shapeRecords {
            warn(
                .missingAttributes,
                "\(shpName) has \(shapeRecords) records but \(name) has \(rows) rows; "
                    + "\(shapeRecords - rows) shape(s) get null attributes", name)
        } else if rows > shapeRecords {
            warn(
                .orphanDbfRows,
                "\(name) has \(rows) rows but \(shpName) has \(shapeRecords) records; "
                    + "\(rows - shapeRecords) row(s) have no shape", name)
        }
    }

    /// The fields to read, in descriptor order: names decoded in the table's code page, empty ones named
    /// `field_N`, repeated ones renamed `NAME_1`…, and fields no value can be read from dropped (`DBFFieldPlan`).
    private mutating func readFields(
        _ header: DBFHeader, decoder: TextDecoder, warn: (ReasonCode, String, String) -> Void
    ) {
        var used: Set<String> = []
        for raw in header.fields {
            var (fieldName, _) = decoder.decode(raw.nameBytes)
            fieldName = fieldName.trimmingWhitespace
            if fieldName.isEmpty { fieldName = "field_\(raw.index + 1)" }
            let kind: DBFFieldKind
            let type: FieldType
            let decimals: Int
            switch DBFFieldPlan.plan(raw, name: fieldName) {
            case .drop(let why):
                warn(.droppedField, why, name)
                continue
            case .read(let k, let t, let d, let warning):
                (kind, type, decimals) = (k, t, d)
                if let warning { warn(warning.code, warning.message, name) }
            }
            if used.contains(fieldName) {
                var n = 1
                while used.contains("\(fieldName)_\(n)") { n += 1 }
                warn(
                    .duplicateFieldName, "field name \(fieldName) appears twice; renamed to \(fieldName)_\(n)", name)
                fieldName = "\(fieldName)_\(n)"
            }
            used.insert(fieldName)
            fields.append(
                FieldReader(
                    name: fieldName, index: Int32(raw.index), type: type, decimals: decimals, offset: raw.offset,
                    width: raw.width, kind: kind))
            schemaFields.append(
                FieldDefinition(
                    name: fieldName, type: type, width: raw.width, decimals: type == .double ? decimals : 0,
                    nativeType: String(decoding: [raw.type], as: UTF8.self)))
        }
    }
}
