/// The text of a `.dbf` that is not plain ASCII, gathered to decide its encoding when nothing declares one
/// (`EncodingDetector`).
///
/// Every character field of every record (deleted ones too: they are text of the same writer) and every field name
/// is looked at, up to `maxScannedBytes` of records and `maxValues` distinct values; values and names made of ASCII
/// bytes only say nothing about the encoding and are left out. Values are cut at the first NUL and trimmed of
/// blanks, as the reader cuts them.
struct DBFTextSample {
    /// Distinct non-ASCII values (and field names), in first-occurrence order.
    var values: [[UInt8]] = []
    /// True when the scan stopped at one of the limits.
    var truncated = false

    /// Records read: at most this many bytes of them (a bigger file is judged by its first 256 MiB).
    static let maxScannedBytes = 256 << 20
    /// Distinct values kept.
    static let maxValues = 20_000

    init(file: InputFile, header: DBFHeader) throws(ShapefileError) {
        var seen: Set<[UInt8]> = []
        func add(_ bytes: [UInt8]) {
            guard bytes.contains(where: { $0 >= 0x80 }), values.count < Self.maxValues else { return }
            if seen.insert(bytes).inserted { values.append(bytes) }
        }
        for f in header.fields { add(f.nameBytes) }
        let text = header.fields.filter { $0.type == UInt8(ascii: "C") && $0.width > 0 }
        let length = header.recordLength
        guard !text.isEmpty, header.recordCount > 0, length > 0 else { return }
        let scanned = min(header.recordCount, Self.maxScannedBytes / length)
        truncated = scanned < header.recordCount
        let perChunk = max(1, (4 << 20) / length)
        var first = 0
        while first < scanned, values.count < Self.maxValues {
            let count = min(perChunk, scanned - first)
            let chunk = try file.bytes(at: header.headerLength + first * length, count: count * length)
            var at = 0
            while at + length <= chunk.count {
                for f in text where f.offset + f.width <= length {
                    let value = ShapefileReader.trimmed(
                        Array(chunk[at + f.offset..<at + f.offset + f.width]), cutAtNUL: true)
                    add(value)
                }
                at += length
            }
            first += count
        }
        if values.count >= Self.maxValues { truncated = true }
    }
}
