/// dBASE II and dBASE 7 `.dbf` headers, whose field descriptors shapelib cannot parse (issue 36).
///
/// Their records are laid out as dBASE III's are (a deletion flag, then the fields at fixed widths); only the header
/// differs. So the header is parsed here and translated into the dBASE III header shapelib reads, and shapelib sees
/// the translated header followed by the file's own records (`VirtualFileSource.spliced`); `DBFHeader` carries the
/// fields as for any other file.
///
/// - dBASE II (version byte 0x02): record count (uint16) at byte 1, record length (uint16) at byte 6, then up to 32
///   descriptors of 16 bytes (name 11, type 1, width 1, address 2, decimals 1) ended by 0x0D; the records start at
///   byte 521 (8 + 32·16 + 1) whatever the number of fields. FoxBASE also wrote 0x02 with a dBASE III header: the
///   dBASE II reading is taken only when it is self-consistent (terminator found, widths add up to the record
///   length, the records fit the file).
/// - dBASE 7 (version byte & 0x07 = 4: 0x04, 0x8C): the dBASE III 32-byte header, a 32-byte language-driver name
///   and 4 reserved bytes, then 48-byte descriptors (name 32, type 1, width 1, decimals 1, …) ended by 0x0D; the
///   records start at the header length. Its `I` and `+` (autoincrement) fields are 4-byte big-endian integers and
///   `O` 8-byte big-endian doubles, both with the sign bit flipped (`DBFFieldPlan`).
struct DBFLegacyHeader {
    enum Dialect: Equatable {
        case dBase2
        case dBase7

        var name: String { self == .dBase2 ? "dBASE II" : "dBASE 7" }
    }

    var dialect: Dialect
    /// Name bytes (up to the first NUL), type letter, width and decimals of each field, in order.
    var fields: [(name: [UInt8], type: UInt8, width: Int, decimals: Int)] = []
    var recordCount: Int
    var recordLength: Int
    /// Where the records start in the file.
    var dataOffset: Int
    var languageDriver: UInt8
    /// The date bytes (YY MM DD) of the header, kept in the translation.
    var date: [UInt8]

    /// The dialect a version byte may stand for (dBASE II only when its layout then holds: see `init`).
    static func dialect(version: UInt8) -> Dialect? {
        if version == 0x02 { return .dBase2 }
        if version & 0x07 == 0x04 { return .dBase7 }
        return nil
    }

    /// Parses the header of `file` in `dialect`; nil when a dBASE II reading is not self-consistent (a FoxBASE file
    /// with a dBASE III header). A dBASE 7 header that cannot be read is rejected.
    init?(file: InputFile, dialect: Dialect) throws(ShapefileError) {
        self.dialect = dialect
        func reject(_ reason: String) -> ShapefileError {
            .badDBFHeader(file: file.name, reason: "\(dialect.name) header: \(reason)")
        }
        let size = file.size
        let descriptorStart = dialect == .dBase2 ? 8 : 68
        let descriptorSize = dialect == .dBase2 ? 16 : 48
        let head = try file.bytes(at: 0, count: min(size, 32))
        guard head.count == 32 else { throw reject("shorter than 32 bytes") }
        if dialect == .dBase2 {
            recordCount = head.uint16LE(1)
            recordLength = head.uint16LE(6)
            dataOffset = 521
            languageDriver = 0
            date = [head[5], head[3], head[4]]
        } else {
            recordCount = Int(head.uint32LE(4))
            recordLength = head.uint16LE(10)
            dataOffset = head.uint16LE(8)
            languageDriver = head[29]
            date = Array(head[1...3])
        }
        guard dataOffset > descriptorStart, dataOffset <= size else {
            if dialect == .dBase2 { return nil }
            throw reject("header length \(dataOffset) lies outside the \(size)-byte file")
        }
        let descriptors = try file.bytes(at: descriptorStart, count: dataOffset - descriptorStart)
        var at = 0
        var terminated = false
        while at < descriptors.count {
            if descriptors[at] == 0x0D {
                terminated = true
                break
            }
            guard at + descriptorSize <= descriptors.count else { break }
            let d = Array(descriptors[at..<at + descriptorSize])
            let nameLength = dialect == .dBase2 ? 11 : 32
            let name = Array(d.prefix(nameLength).prefix { $0 != 0 })
            let (type, width, decimals) =
                dialect == .dBase2 ? (d[11], Int(d[12]), Int(d[15])) : (d[32], Int(d[33]), Int(d[34]))
            fields.append((name, type, width, decimals))
            at += descriptorSize
        }
        let widths = fields.reduce(0) { $0 + $1.width }
        let fits = recordLength > 0 && dataOffset + recordCount * recordLength <= size
        guard terminated, !fields.isEmpty, widths + 1 == recordLength, fits || dialect == .dBase7 else {
            if dialect == .dBase2 { return nil }
            throw reject(
                terminated
                    ? "record length \(recordLength) does not equal 1 + the field widths (\(widths + 1))"
                    : "no 0x0D terminator after the 48-byte field descriptors")
        }
    }

    /// The dBASE III header (32 + 32·n + 1 bytes) describing the same records, for shapelib. Names longer than 11
    /// bytes are cut there (shapelib's names are not used: `DBFHeader` keeps the full ones).
    func dBase3Header() -> [UInt8] {
        let headerLength = 32 + 32 * fields.count + 1
        var h = [UInt8](repeating: 0, count: headerLength)
        h[0] = 0x03
        h.replaceSubrange(1...3, with: date)
        for k in 0..<4 { h[4 + k] = UInt8(truncatingIfNeeded: recordCount >> (8 * k)) }
        h[8] = UInt8(truncatingIfNeeded: headerLength)
        h[9] = UInt8(truncatingIfNeeded: headerLength >> 8)
        h[10] = UInt8(truncatingIfNeeded: recordLength)
        h[11] = UInt8(truncatingIfNeeded: recordLength >> 8)
        h[29] = languageDriver
        for (k, f) in fields.enumerated() {
            let at = 32 + 32 * k
            h.replaceSubrange(at..<at + min(f.name.count, 10), with: f.name.prefix(10))
            h[at + 11] = f.type
            h[at + 16] = UInt8(f.width)
            h[at + 17] = UInt8(f.decimals)
        }
        h[headerLength - 1] = 0x0D
        return h
    }
}

extension DBFHeader {
    /// What shapelib is given for this file: the file itself, or for a dBASE II or dBASE 7 table the translated
    /// dBASE III header followed by the file's records.
    func shapelibSource(fd: Int32, size: Int) -> VirtualFileSource {
        guard let h = translatedHeader else { return .descriptor(fd, size: size) }
        return .spliced(prefix: h, fd: fd, from: headerLength, size: h.count + max(0, size - headerLength))
    }

    /// The header length shapelib sees.
    var shapelibHeaderLength: Int { translatedHeader?.count ?? headerLength }
}
