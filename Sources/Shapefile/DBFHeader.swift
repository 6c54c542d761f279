import KartpackCore

/// A `.dbf` header parsed and checked by Kartpack itself before shapelib sees the file.
///
/// shapelib trusts the header: a header length that does not match the field descriptors shifts every value, a
/// lying record count makes reads run past the end, and several inconsistencies make `DBFOpenLL` return NULL
/// without a message. Every such case is rejected here with an explicit `bad_dbf_header` reason, except where the
/// layout is still unambiguous (GDAL reads these files too), which is accepted with a warning:
///
/// - a record count larger than the file holds is capped (`dbf_count_lies`);
/// - a missing `0x0D` terminator, or another byte in its place, when the header length is exactly the field
///   descriptors (`32 + 32·n`) or the descriptors plus one byte (`dbf_no_terminator`), also with no field at all
///   (a 33-byte header; PostGIS's loader writes 0x0A there);
/// - a first record starting with 0x00 instead of the space deletion flag, when header and records fill the file
///   exactly (`dbf_nul_deletion_flag`; such rows are read as not deleted);
/// - a header length other than the usual one that the file size proves (`dbf_header_padding`);
/// - a record length larger than 1 + Σ widths that the file size proves: each record carries padding after its last
///   field (`dbf_record_padding`);
/// - character fields wider than 255 bytes (Clipper and FoxPro store the high byte of the width in the decimals
///   byte), only when the widths read that way add up to the record length and the one-byte widths do not
///   (`long_character_field`);
/// - dBASE II and dBASE 7 headers, read by `DBFLegacyHeader` and given to shapelib translated (`dbf_legacy_layout`).
struct DBFHeader {
    struct RawField {
        /// The name bytes, up to the first NUL (at most 11).
        var nameBytes: [UInt8]
        /// The type letter byte (`C`, `N`, `F`, `L`, `D`, …).
        var type: UInt8
        var width: Int
        var decimals: Int
        /// The index shapelib uses for this field.
        var index: Int
        /// The byte offset of the field inside a record (the deletion flag is byte 0).
        var offset: Int
        /// A dBASE 7 field, whose `I`, `+` and `O` values are big-endian with the sign bit flipped.
        var dBase7 = false
    }

    var version: UInt8
    var declaredRecordCount: Int
    /// The record count after capping to what the file holds.
    var recordCount: Int
    var headerLength: Int
    var recordLength: Int
    var languageDriver: UInt8
    var fields: [RawField]
    /// For a dBASE II or dBASE 7 table: the dBASE III header shapelib is given instead of the file's own.
    var translatedHeader: [UInt8]?
    /// Warnings about tolerated layouts, as (code, message), in the order found.
    var warnings: [(code: ReasonCode, message: String)] = []

    /// The header's record count capped by the file size, read without any other check: what a rejected `.dbf`
    /// can still tell about the number of records (nil when not even the 32-byte header is there).
    static func probeRecordCount(file: InputFile) -> Int? {
        guard file.size >= 32, let head = try? file.bytes(at: 0, count: 32), head.count == 32 else { return nil }
        let declared = Int(head.uint32LE(4))
        let headerLength = head.uint16LE(8)
        let recordLength = head.uint16LE(10)
        guard recordLength > 0, headerLength >= 33, headerLength <= file.size else { return declared }
        return min(declared, (file.size - headerLength) / recordLength)
    }

    /// Parses and checks the header of `file`.
    init(file: InputFile) throws(ShapefileError) {
        let name = file.name
        func reject(_ reason: String) -> ShapefileError { .badDBFHeader(file: name, reason: reason) }
        guard file.size >= 32 else { throw reject("the file is \(file.size) bytes, shorter than the 32-byte header") }
        let head = try file.bytes(at: 0, count: 32)
        guard head.count == 32 else { throw reject("cannot read the 32-byte header") }
        if let dialect = DBFLegacyHeader.dialect(version: head[0]),
            let legacy = try DBFLegacyHeader(file: file, dialect: dialect)
        {
            self = try DBFHeader(legacy: legacy, version: head[0], file: file)
            return
        }
        version = head[0]
        declaredRecordCount = Int(head.uint32LE(4))
        recordCount = declaredRecordCount
        headerLength = head.uint16LE(8)
        recordLength = head.uint16LE(10)
        languageDriver = head[29]
        guard headerLength >= 33 else {
            throw reject("header length \(headerLength) is shorter than 33 bytes (32-byte header + terminator)")
        }
        guard headerLength <= file.size else {
            throw reject("header length \(headerLength) is past the end of the \(file.size)-byte file")
        }
        // No fields, no records and record length 0 (NetTopologySuite's empty Shapefile): nothing to read.
        if recordLength == 0 && headerLength == 33 && declaredRecordCount == 0 && file.size <= 34 {
            version = head[0]
            fields = []
            recordCount = 0
            warnings.append((.dbfWithoutRecords, "no fields, no records and a record length of 0: nothing to read"))
            return
        }
        guard recordLength > 0 else { throw reject("record length is 0") }

        // Field descriptors: 32 bytes each until the 0x0D terminator.
        let descriptors = try file.bytes(at: 32, count: headerLength - 32)
        var fields: [RawField] = []
        var at = 0
        var terminator: Int?
        while at < descriptors.count {
            if descriptors[at] == 0x0D {
                terminator = 32 + at
                break
            }
            guard at + 32 <= descriptors.count else { break }
            let d = descriptors[at..<at + 32]
            var nameBytes = Array(d.prefix(11))
            if let nul = nameBytes.firstIndex(of: 0) { nameBytes.removeSubrange(nul...) }
            fields.append(
                RawField(
                    nameBytes: nameBytes, type: d[d.startIndex + 11], width: Int(d[d.startIndex + 16]),
                    decimals: Int(d[d.startIndex + 17]), index: fields.count, offset: 0))
            at += 32
        }
        let dataBytes = file.size - headerLength
        let isVisualFoxPro = version == 0x30 || version == 0x31 || version == 0x32
        if let terminator {
            let standard = terminator + 1
            if headerLength != standard && !(isVisualFoxPro && headerLength == standard + 263) {
                // Accept only when the file size proves where the records start.
                guard Self.sizeProves(dataBytes: dataBytes, count: declaredRecordCount, recordLength: recordLength)
                else {
                    throw reject(
                        "header length \(headerLength) does not match \(fields.count) field descriptors (expected "
                            + "\(standard)); attributes would be shifted")
                }
                warnings.append(
                    (
                        .dbfHeaderPadding,
                        "header length \(headerLength) is not the usual \(standard), but the file size confirms it"
                    ))
            }
        } else {
            // No terminator: the header length must be exactly the descriptors, or the descriptors plus the byte
            // where the terminator belongs (shapelib and GDAL derive the field count from the header length too).
            // A 33-byte header is a file without fields whose terminator byte is another (PostGIS's loader writes
            // 0x0A there).
            let n = fields.count
            guard n > 0 || headerLength == 33, headerLength == 32 + 32 * n || headerLength == 32 + 32 * n + 1,
                fields.allSatisfy({ Self.isPlausibleType($0.type) })
            else {
                throw reject(
                    "no 0x0D terminator after the field descriptors within the \(headerLength)-byte header, and the "
                        + "header length does not match a whole number of field descriptors")
            }
            let what =
                headerLength == 32 + 32 * n
                ? "there is no 0x0D terminator after the \(n) field descriptors"
                : "the byte after the \(n) field descriptors is 0x"
                    + String(descriptors[descriptors.count - 1], radix: 16) + ", not the 0x0D terminator"
            warnings.append((.dbfNoTerminator, what + "; the header length \(headerLength) agrees with them"))
        }

        // Widths: the plain one-byte widths must add up to the record length, or (with proof) leave padding.
        let plainSum = fields.reduce(0) { $0 + $1.width }
        let longSum = fields.reduce(0) { $0 + Self.longWidth($1) }
        if plainSum + 1 != recordLength && longSum != plainSum && longSum + 1 == recordLength {
            for k in fields.indices { fields[k].width = Self.longWidth(fields[k]) }
            let wide = fields.filter { $0.type == UInt8(ascii: "C") && $0.width > 255 }
            for f in wide { fields[f.index].decimals = 0 }
            warnings.append(
                (
                    .longCharacterField,
                    "\(wide.count) character field(s) wider than 255 bytes (the decimals byte holds the high byte of "
                        + "the width, as Clipper and FoxPro write it); the widths then add up to the record length"
                ))
        } else if plainSum + 1 < recordLength
            && Self.sizeProves(dataBytes: dataBytes, count: declaredRecordCount, recordLength: recordLength)
        {
            warnings.append(
                (
                    .dbfRecordPadding,
                    "records are \(recordLength) bytes, \(recordLength - plainSum - 1) more than the fields need; the "
                        + "file size confirms it, the extra bytes are ignored"
                ))
        } else if plainSum + 1 != recordLength {
            throw reject(
                "record length \(recordLength) does not equal 1 + the field widths (\(plainSum + 1)); "
                    + "attributes would be shifted")
        }
        var offset = 1
        for k in fields.indices {
            fields[k].offset = offset
            offset += fields[k].width
        }
        self.fields = fields
        try checkRecords(file: file, dataBytes: dataBytes)
    }

    /// A dBASE II or dBASE 7 header, read through its dBASE III translation (`DBFLegacyHeader`).
    private init(legacy: DBFLegacyHeader, version: UInt8, file: InputFile) throws(ShapefileError) {
        self.version = version
        declaredRecordCount = legacy.recordCount
        recordCount = legacy.recordCount
        headerLength = legacy.dataOffset
        recordLength = legacy.recordLength
        languageDriver = legacy.languageDriver
        translatedHeader = legacy.dBase3Header()
        var offset = 1
        fields = legacy.fields.enumerated().map { k, f in
            defer { offset += f.width }
            return RawField(
                nameBytes: f.name, type: f.type, width: f.width, decimals: f.decimals, index: k, offset: offset,
                dBase7: legacy.dialect == .dBase7)
        }
        warnings.append(
            (
                .dbfLegacyLayout,
                "a \(legacy.dialect.name) table (version byte 0x\(String(version, radix: 16))): its \(fields.count) "
                    + "field descriptors are read by Kartpack and the records as dBASE III records"
            ))
        try checkRecords(file: file, dataBytes: file.size - headerLength)
    }

    /// Caps the record count to what the file holds and checks that the records start at the header length.
    private mutating func checkRecords(file: InputFile, dataBytes: Int) throws(ShapefileError) {
        let name = file.name
        func reject(_ reason: String) -> ShapefileError { .badDBFHeader(file: name, reason: reason) }
        let available = dataBytes / recordLength
        if declaredRecordCount > available {
            recordCount = available
            warnings.append(
                (
                    .dbfCountLies,
                    "header claims \(declaredRecordCount) records but the file holds \(available); reading \(available)"
                ))
        } else {
            recordCount = declaredRecordCount
        }
        // The first record must start with a deletion flag; anything else means the data does not start at the
        // header length. Some writers put 0x00 there instead of a space: read as not deleted when the file size
        // proves the layout.
        if recordCount > 0 {
            let flag = try file.bytes(at: headerLength, count: 1)
            if flag.first == 0x00
                && Self.sizeProves(dataBytes: dataBytes, count: declaredRecordCount, recordLength: recordLength)
            {
                warnings.append(
                    (
                        .dbfNulDeletionFlag,
                        "records start with 0x00 instead of the space deletion flag; header and records fill the "
                            + "file exactly, so they are read as not deleted"
                    ))
                return
            }
            guard let f = flag.first, f == 0x20 || f == 0x2A else {
                throw reject(
                    "the first record does not start with a deletion flag (byte \(headerLength) is "
                        + "0x\(String(flag.first ?? 0, radix: 16))); attributes would be shifted")
            }
        }
    }

    /// True when exactly `count` records of `recordLength` bytes (plus an optional 0x1A end marker) fill the data.
    static func sizeProves(dataBytes: Int, count: Int, recordLength: Int) -> Bool {
        let (exact, overflow) = count.multipliedReportingOverflow(by: recordLength)
        return !overflow && count > 0 && (dataBytes == exact || dataBytes == exact + 1)
    }

    /// The width of a character field read the Clipper/FoxPro way (decimals byte = high byte); other types as is.
    static func longWidth(_ f: RawField) -> Int {
        f.type == UInt8(ascii: "C") ? f.width + 256 * f.decimals : f.width
    }

    /// A field type byte that some dBASE dialect uses (an ASCII letter, digit or `@`/`+`), so that a run of 32-byte
    /// blocks without a terminator is believed to be field descriptors.
    static func isPlausibleType(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x40 || b == 0x2B || b == 0x30
    }
}
