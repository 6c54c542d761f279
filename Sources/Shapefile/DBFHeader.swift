/// A `.dbf` header parsed and checked by Kartpack itself before shapelib sees the file.
///
/// shapelib trusts the header: a header length that does not match the field descriptors shifts every value, a
/// lying record count makes reads run past the end, and several inconsistencies make `DBFOpenLL` return NULL
/// without a message. Every such case is rejected here with an explicit `bad_dbf_header` reason, except a
/// record count larger than the file holds, which is capped (`dbf_count_lies`).
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
    }

    var version: UInt8
    var declaredRecordCount: Int
    /// The record count after capping to what the file holds.
    var recordCount: Int
    var headerLength: Int
    var recordLength: Int
    var languageDriver: UInt8
    var fields: [RawField]
    /// Set when the declared count was capped.
    var countWarning: String?
    /// Set when the header length is unusual but proven consistent by the file size.
    var paddingWarning: String?

    /// Parses and checks the header of `file`.
    init(file: InputFile) throws(ShapefileError) {
        let name = file.name
        func reject(_ reason: String) -> ShapefileError { .badDBFHeader(file: name, reason: reason) }
        guard file.size >= 32 else { throw reject("the file is \(file.size) bytes, shorter than the 32-byte header") }
        let head = try file.bytes(at: 0, count: 32)
        guard head.count == 32 else { throw reject("cannot read the 32-byte header") }
        version = head[0]
        declaredRecordCount = Int(head.uint32LE(4))
        headerLength = head.uint16LE(8)
        recordLength = head.uint16LE(10)
        languageDriver = head[29]
        guard headerLength >= 33 else {
            throw reject("header length \(headerLength) is shorter than 33 bytes (32-byte header + terminator)")
        }
        guard headerLength <= file.size else {
            throw reject("header length \(headerLength) is past the end of the \(file.size)-byte file")
        }
        guard recordLength > 0 else { throw reject("record length is 0") }
        if version & 0x07 == 0x04 {
            throw reject("dBASE 7 files (version byte 0x\(String(version, radix: 16))) are not supported")
        }

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
                    decimals: Int(d[d.startIndex + 17]), index: fields.count))
            at += 32
        }
        guard let terminator else {
            throw reject("no 0x0D terminator after the field descriptors within the \(headerLength)-byte header")
        }
        let standard = terminator + 1
        let isVisualFoxPro = version == 0x30 || version == 0x31 || version == 0x32
        let dataBytes = file.size - headerLength
        if headerLength != standard && !(isVisualFoxPro && headerLength == standard + 263) {
            // Accept only when the file size proves where the records start.
            let exact = declaredRecordCount * recordLength
            guard dataBytes == exact || dataBytes == exact + 1 else {
                throw reject(
                    "header length \(headerLength) does not match \(fields.count) field descriptors (expected "
                        + "\(standard)); attributes would be shifted")
            }
            paddingWarning =
                "header length \(headerLength) is not the usual \(standard), but the file size confirms it"
        }
        let widthSum = fields.reduce(0) { $0 + $1.width }
        guard widthSum + 1 == recordLength else {
            throw reject(
                "record length \(recordLength) does not equal 1 + the field widths (\(widthSum + 1)); "
                    + "attributes would be shifted")
        }
        self.fields = fields

        let available = dataBytes / recordLength
        if declaredRecordCount > available {
            recordCount = available
            countWarning =
                "header claims \(declaredRecordCount) records but the file holds \(available); reading \(available)"
        } else {
            recordCount = declaredRecordCount
        }
        // The first record must start with a deletion flag; anything else means the data does not start at the
        // header length.
        if recordCount > 0 {
            let flag = try file.bytes(at: headerLength, count: 1)
            guard let f = flag.first, f == 0x20 || f == 0x2A else {
                throw reject(
                    "the first record does not start with a deletion flag (byte \(headerLength) is "
                        + "0x\(String(flag.first ?? 0, radix: 16))); attributes would be shifted")
            }
        }
    }
}
