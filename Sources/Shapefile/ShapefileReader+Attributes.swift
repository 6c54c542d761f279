internal import CShapelib
import Glibc
import KartpackCore

extension ShapefileReader {
    /// The attributes of record `i`: every field in schema order; all null past the end of the `.dbf`.
    func readAttributes(_ i: Int) -> Properties {
        guard let dbf else { return Properties() }
        let record = i + 1
        guard i < dbfRows else { return Properties(fields.map { ($0.name, PropertyValue.null) }) }
        var properties = Properties()
        for field in fields {
            guard let p = DBFReadStringAttribute(dbf.handle, Int32(i), field.index) else {
                let messages = ShapelibIO.drainMessages()
                warnRecord(
                    "attribute_read_error",
                    "field \(field.name): " + (messages.isEmpty ? "cannot be read" : messages.joined(separator: "; "))
                        + "; stored as null", file: dbfName, record: record)
                properties.append(field.name, .null)
                continue
            }
            // shapelib reuses one buffer per handle: copy the bytes at once, never through String(cString:).
            let bytes = Array(UnsafeRawBufferPointer(start: p, count: strlen(p)))
            properties.append(field.name, value(bytes, field: field, record: record))
        }
        let messages = ShapelibIO.drainMessages()
        if !messages.isEmpty {
            warnRecord("shapelib_message", messages.joined(separator: "; "), file: dbfName, record: record)
        }
        return properties
    }

    private func value(_ bytes: [UInt8], field: FieldReader, record: Int) -> PropertyValue {
        let outcome: DBFValueParser.Outcome
        switch field.type {
        case .string:
            guard !bytes.isEmpty, let decoder else { return .null }
            let (text, issue) = decoder.decode(bytes)
            switch issue {
            case nil: break
            case .invalidUTF8:
                stats.coercedToNull["invalid_utf8", default: 0] += 1
                diagnostics.report(
                    Diagnostic(
                        .warning, code: "invalid_utf8", "field \(field.name): invalid UTF-8 replaced with U+FFFD",
                        file: dbfName, record: record))
            case .fallbackToCP1252:
                warnRecord(
                    "encoding_fallback", "field \(field.name): not valid UTF-8; decoded as CP1252", file: dbfName,
                    record: record)
            case .undecodableBytes:
                warnRecord(
                    "undecodable_bytes",
                    "field \(field.name): bytes undefined in \(decoder.name) replaced with U+FFFD", file: dbfName,
                    record: record)
            }
            return .string(text)
        case .integer, .double:
            outcome = DBFValueParser.number(display(bytes), decimals: field.decimals)
        case .logical:
            outcome = DBFValueParser.logical(display(bytes))
        case .date:
            outcome = DBFValueParser.date(display(bytes))
        }
        switch outcome {
        case .value(let v): return v
        case .nullInSource: return .null
        case .coerced(let code, let message):
            stats.coercedToNull[code, default: 0] += 1
            diagnostics.report(
                Diagnostic(
                    .warning, code: code, "field \(field.name): \(message); stored as null", file: dbfName,
                    record: record))
            return .null
        }
    }

    /// Text for parsing and messages: ASCII as is, anything else through the layer's decoder.
    private func display(_ bytes: [UInt8]) -> String {
        if let decoder, bytes.contains(where: { $0 >= 0x80 }) { return decoder.decode(bytes).0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}
