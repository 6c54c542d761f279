internal import CShapelib
import KartpackCore

extension ShapefileReader {
    /// The attributes of record `record` (1-based) whatever became of its shape: the id of a record `next()`
    /// skipped (a null or non-finite shape) can then be named. Nil when there is no such record.
    public func attributes(ofRecord record: Int) throws(ShapefileError) -> Properties? {
        guard record >= 1, record <= stats.recordsInFile else { return nil }
        return try readAttributes(record - 1)
    }

    /// The attributes of record `i`: every field in schema order; all null past the end of the `.dbf`.
    ///
    /// The whole record is copied from shapelib's buffer at once (`DBFReadTuple`) and each field is cut from it at
    /// the offsets `DBFHeader` computed, so binary FoxPro fields (which may hold NUL bytes) and character fields
    /// wider than 255 bytes are read correctly. Text is cut at the first NUL and trimmed of blanks, as shapelib and
    /// GDAL do.
    func readAttributes(_ i: Int) throws(ShapefileError) -> Properties {
        guard let dbf else { return Properties() }
        let record = i + 1
        guard i < dbfRows else { return Properties(fields.map { ($0.name, PropertyValue.null) }) }
        guard let p = DBFReadTuple(dbf.handle, Int32(i)) else {
            let messages = ShapelibIO.drainMessages()
            warnRecord(
                .attributeReadError,
                (messages.isEmpty ? "the row cannot be read" : messages.joined(separator: "; "))
                    + "; every attribute stored as null", file: dbfName, record: record)
            return Properties(fields.map { ($0.name, PropertyValue.null) })
        }
        // shapelib reuses one buffer per handle: copy the bytes at once, never through String(cString:).
        let row = Array(UnsafeRawBufferPointer(start: p, count: dbfRecordLength))
        var properties = Properties()
        for field in fields {
            let end = min(field.offset + field.width, row.count)
            let bytes = field.offset < end ? Array(row[field.offset..<end]) : []
            properties.append(field.name, try value(bytes, field: field, record: record))
        }
        let messages = ShapelibIO.drainMessages()
        if !messages.isEmpty {
            warnRecord(.shapelibMessage, messages.joined(separator: "; "), file: dbfName, record: record)
        }
        return properties
    }

    private func value(_ raw: [UInt8], field: FieldReader, record: Int) throws(ShapefileError) -> PropertyValue {
        let outcome: DBFValueParser.Outcome
        switch field.kind {
        case .text:
            return text(Self.trimmed(raw, cutAtNUL: true), field: field, record: record)
        case .number:
            let cleaned = Self.trimmed(raw.filter { $0 != 0 }, cutAtNUL: false)
            if cleaned.isEmpty && raw.contains(0) {
                outcome = .coerced(code: .nulFilledNumber, message: "the value is filled with NUL bytes")
            } else {
                outcome = DBFValueParser.number(display(cleaned), decimals: field.decimals)
            }
        case .logical:
            outcome = DBFValueParser.logical(display(Self.trimmed(raw, cutAtNUL: true)))
        case .date:
            outcome = DBFValueParser.date(display(Self.trimmed(raw.filter { $0 != 0 }, cutAtNUL: false)))
        case .memo(let binary):
            outcome = try memoValue(raw, binary: binary, field: field, record: record)
        case .int32: outcome = DBFValueParser.int32(raw)
        case .double64: outcome = DBFValueParser.double64(raw)
        case .dateTime: outcome = DBFValueParser.dateTime(raw)
        case .currency: outcome = DBFValueParser.currency(raw)
        case .dBase7Integer: outcome = DBFValueParser.dBase7Integer(raw)
        case .dBase7Double: outcome = DBFValueParser.dBase7Double(raw)
        }
        switch outcome {
        case .value(let v): return v
        case .nullInSource: return .null
        case .coerced(let code, let message):
            coerce(code, "field \(field.name): \(message); stored as null", record: record)
            return .null
        }
    }

    /// A memo's text from the memo file, by the block number the record holds.
    private func memoValue(_ raw: [UInt8], binary: Bool, field: FieldReader, record: Int) throws(ShapefileError)
        -> DBFValueParser.Outcome
    {
        let block: Int
        if binary {
            guard raw.count == 4 else { return .nullInSource }
            block = Int(raw.int32LE(0))
        } else {
            let digits = Self.trimmed(raw.filter { $0 != 0 }, cutAtNUL: false)
            if digits.isEmpty { return .nullInSource }
            guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(String(decoding: digits, as: UTF8.self))
            else {
                return .coerced(
                    code: .badMemoBlock,
                    message: "\"\(String(decoding: digits, as: UTF8.self))\" is not a memo block number")
            }
            block = n
        }
        if block == 0 { return .nullInSource }
        guard let memo else {
            // Counted per value, on top of the file-level warning given at open.
            return .coerced(code: .memoFileMissing, message: "the memo file (.dbt/.fpt) is missing")
        }
        switch try memo.read(block: block) {
        case .failure(let problem): return .coerced(code: problem.code, message: problem.message)
        case .success(nil): return .nullInSource
        case .success(let bytes?):
            var b = bytes
            while let last = b.last, last == 0 || last == 0x1A { b.removeLast() }
            return b.isEmpty ? .nullInSource : .value(text(b, field: field, record: record))
        }
    }

    /// Decodes text bytes in the layer's encoding, reporting replacements and guesses.
    private func text(_ bytes: [UInt8], field: FieldReader, record: Int) -> PropertyValue {
        guard !bytes.isEmpty, let decoder else { return .null }
        let (text, issue) = decoder.decode(bytes)
        switch issue {
        case nil: break
        case .invalidUTF8:
            stats.coercedToNull[.invalidUtf8, default: 0] += 1
            diagnostics.report(
                Diagnostic(
                    .warning, code: .invalidUtf8, "field \(field.name): invalid UTF-8 replaced with U+FFFD",
                    file: dbfName, record: record))
        case .fallbackToCP1252:
            warnRecord(
                .encodingFallback, "field \(field.name): not valid UTF-8; decoded as CP1252", file: dbfName,
                record: record)
        case .undecodableBytes:
            warnRecord(
                .undecodableBytes,
                "field \(field.name): bytes undefined in \(decoder.name) replaced with U+FFFD", file: dbfName,
                record: record)
        }
        return .string(text)
    }

    /// Counts one value stored as null under `code` and reports it.
    private func coerce(_ code: ReasonCode, _ message: String, record: Int) {
        stats.coercedToNull[code, default: 0] += 1
        diagnostics.report(Diagnostic(.warning, code: code, message, file: dbfName, record: record))
    }

    /// The bytes without leading and trailing blanks (0x20), optionally cut at the first NUL first.
    static func trimmed(_ bytes: [UInt8], cutAtNUL: Bool) -> [UInt8] {
        // Indices, not `ArraySlice.removeLast()`, which may copy the slice each time (80-character fields are
        // mostly blanks).
        var (lo, hi) = (0, bytes.count)
        if cutAtNUL, let nul = bytes.firstIndex(of: 0) { hi = nul }
        while lo < hi, bytes[lo] == 0x20 { lo += 1 }
        while hi > lo, bytes[hi - 1] == 0x20 { hi -= 1 }
        return Array(bytes[lo..<hi])
    }

    /// Text for parsing and messages: ASCII as is, anything else through the layer's decoder.
    private func display(_ bytes: [UInt8]) -> String {
        if let decoder, bytes.contains(where: { $0 >= 0x80 }) { return decoder.decode(bytes).0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}
