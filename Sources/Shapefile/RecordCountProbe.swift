/// How many records a Shapefile holds, told from whichever file can still be read when the reader rejects the set
/// (a bad `.dbf` header, an unknown code page, a broken `.shp` header), so that *records read = written + rejected*
/// holds for rejected files too (issue 12).
public struct RecordCountProbe: Sendable, Hashable, Codable {
    /// Where the count comes from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The `.shx` entry count (the count the reader itself uses).
        case shx
        /// A scan of the `.shp` record headers (no usable `.shx`).
        case shp
        /// The `.dbf` header's record count, capped by the file size (neither `.shx` nor `.shp` is usable).
        case dbf
    }

    /// The number of records.
    public var count: Int
    /// The file it was read from.
    public var source: Source
}

extension ShapefileSet {
    /// The record count from the `.shx`, else a scan of the `.shp` record headers, else the `.dbf` header; nil
    /// ("unknown") when none of them can be read. Never throws and never trusts more than the files hold: the same
    /// checks as the reader (regular files only, magic numbers, sizes, at most `ShxIndex.maxRecords`).
    ///
    /// The reader's own `stats.recordsInFile` is the count of a set it opened; this probe is for sets it rejected.
    public func probeRecordCount() -> RecordCountProbe? {
        if let shx, let file = try? InputFile(path: shx), file.size <= 100 + 8 * ShxIndex.maxRecords,
            let bytes = try? file.bytes(at: 0, count: file.size),
            let (index, _) = try? ShxIndex.parse(bytes)
        {
            return RecordCountProbe(count: index.count, source: .shx)
        }
        if let file = try? InputFile(path: shp), file.size >= 100, file.size <= Int(UInt32.max),
            let head = try? file.bytes(at: 0, count: 100), head.count == 100, head.int32BE(0) == 9994,
            let index = try? ShxIndex.rebuild(from: file)
        {
            return RecordCountProbe(count: index.count, source: .shp)
        }
        if let dbf, let file = try? InputFile(path: dbf), let n = DBFHeader.probeRecordCount(file: file) {
            return RecordCountProbe(count: n, source: .dbf)
        }
        return nil
    }
}
