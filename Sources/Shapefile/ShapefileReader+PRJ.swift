import KartpackCore

extension ShapefileReader {
    /// The text of the `.prj` at `path`: nil when there is none or it is larger than `maxPRJBytes` (warned
    /// `prj_too_large` through `warn`: code, message, file); a UTF-8 byte-order mark is dropped, and text that is
    /// not valid UTF-8 is read as Latin-1.
    static func readPRJ(
        _ path: String?, warn: (ReasonCode, String, String) -> Void
    ) throws(ShapefileError) -> String? {
        guard let path else { return nil }
        let prjFile = try InputFile(path: path)
        guard prjFile.size <= maxPRJBytes else {
            warn(.prjTooLarge, "\(prjFile.size) bytes (limit \(maxPRJBytes)); ignored", prjFile.name)
            return nil
        }
        var bytes = try prjFile.bytes(at: 0, count: prjFile.size)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return String(validating: bytes, as: UTF8.self)
            ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
