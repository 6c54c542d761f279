internal import CShapelib
import GeometryAlgorithms
import Glibc
import KartpackCore

extension ShapefileReader {
    /// Reads record `i` (0-based); nil when it was skipped (already counted and reported).
    func readRecord(_ i: Int) throws(ShapefileError) -> Feature? {
        let record = i + 1
        let offset = index.offsets[i]
        let length = index.lengths[i]

        // Index entry.
        guard ShxIndex.entryIsUsable(offset: offset, length: length, fileSize: shpFile.size) else {
            if offset >= 100, length >= 4, declaredSHPLength > shpFile.size, offset + 8 + length <= declaredSHPLength {
                // The record belongs to the file the header declares, which was cut short.
                warnOncePerFile(
                    .truncatedAt,
                    "truncated at byte \(shpFile.size): the header declares \(declaredSHPLength) bytes; records past "
                        + "the end are skipped as truncated", file: shpName, record: record, offset: offset)
                skip(
                    .truncated,
                    "the record spans bytes \(offset)..<\(offset + 8 + length) but the file ends at byte "
                        + "\(shpFile.size)",
                    record: record, offset: offset)
                return nil
            }
            var why = "index entry points at byte \(offset) with length \(length)"
            if offset < 100 {
                why += ", inside the 100-byte header"
            } else if length < 4 {
                why += ", too short for a shape type"
            } else {
                why += ", past the end of the \(shpFile.size)-byte file"
            }
            skip(.badIndexEntry, why, record: record, offset: offset)
            return nil
        }
        if let keeps = keepsRecordBox, let box = try storedBox(offset: offset, length: length), !keeps(box) {
            recordsLeftByBox += 1
            return nil
        }
        let head = try shpFile.aheadBytes(at: offset, count: 8)
        guard head.count == 8 else { throw .ioError(file: shpName, offset: offset, reason: "short read") }
        let number = head.int32BE(0)
        if Int(number) != record {
            // GDAL ignores record numbers; so does Kartpack, loudly.
            warnOncePerFile(
                .recordNumberMismatch,
                "the record header at byte \(offset) says record \(number), expected \(record); read anyway",
                file: shpName, record: record, offset: offset)
        }
        let headerLength = Int(UInt32(bitPattern: head.int32BE(4))) * 2
        if let declared = overrunLengths[i] {
            warnOncePerFile(
                .recordLengthOverrun,
                "the record at byte \(offset) declares \(declared) bytes, \(declared - length) past the end of the "
                    + "\(shpFile.size)-byte file, but its parts and points fit in the \(length) bytes there; read",
                file: shpName, record: record, offset: offset)
        }
        if headerLength != (overrunLengths[i] ?? length) {
            warnOncePerFile(
                .lengthMismatch, "record header says \(headerLength) bytes, the index \(length); using the index",
                file: shpName, record: record, offset: offset)
        }

        // Deleted in the .dbf: the whole record goes.
        if let dbf, i < dbfRows, DBFIsRecordDeleted(dbf.handle, Int32(i)) != 0 {
            stats.deletedRecords += 1
            skip(
                .deletedInSource, "the .dbf row is flagged as deleted", record: record, offset: offset,
                severity: .note)
            return nil
        }

        // Shape.
        _ = ShapelibIO.drainMessages()
        guard let raw = SHPReadObject(shp.handle, Int32(i)) else {
            let messages = ShapelibIO.drainMessages()
            skip(
                .corruptRecord,
                messages.isEmpty ? "shapelib could not read the record" : messages.joined(separator: "; "),
                record: record, offset: offset)
            return nil
        }
        let object = SHPObjectOwner(raw)
        let libraryNotes = ShapelibIO.drainMessages()
        if !libraryNotes.isEmpty {
            warnRecord(
                .shapelibMessage, libraryNotes.joined(separator: "; "), file: shpName, record: record, offset: offset)
        }
        let geometry: Geometry
        switch convert(object.object.pointee) {
        case .skipped(let code, let message):
            skip(code, message, record: record, offset: offset, severity: code == .nullGeometry ? .note : .warning)
            return nil
        case .built(let g, let repairs):
            for r in repairs { repaired(r, record: record, offset: offset) }
            geometry = g
        }

        let properties = try readAttributes(i)
        return Feature(
            id: UInt64(record), geometry: geometry, properties: properties,
            provenance: Provenance(source: shpName, record: record, offset: offset))
    }

    /// Converts one shapelib object, by its own type.
    private func convert(_ o: SHPObject) -> GeometryAssembly {
        let type = o.nSHPType
        if type == SHPT_NULL { return .skipped(code: .nullGeometry, message: "null shape") }
        guard let (family, _, _) = ShapeType.describe(type) else {
            return .skipped(code: .unknownShapeType, message: "unknown shape type \(type)")
        }
        // A MultiPatch is read as polygons, so it belongs in a Polygon layer too (GDAL reads it there as well).
        let polygonal: Set<ShapeType.Family?> = [.polygon, .multiPatch]
        guard family == fileFamily || (polygonal.contains(family) && polygonal.contains(fileFamily)) else {
            return .skipped(
                code: .typeMismatch,
                message:
                    "record type \(ShapeType.name(type)) does not match the file type \(schema.sourceShapeType ?? "?")")
        }
        let n = Int(o.nVertices)
        guard n > 0, let px = o.padfX, let py = o.padfY else {
            return .skipped(code: .emptyGeometry, message: "no vertices")
        }
        guard n <= maxVertices else {
            return .skipped(code: .tooComplex, message: "\(n) vertices, more than the limit of \(maxVertices)")
        }
        // Coordinates must be finite before anything else looks at them. Z and M are not read: tiles are
        // two-dimensional, so a NaN there (a "no data" Z) costs nothing.
        var xy = [Double](repeating: 0, count: 2 * n)
        for k in 0..<n {
            let x = px[k]
            let y = py[k]
            guard x.isFinite, y.isFinite else {
                return .skipped(code: .nonFiniteCoordinate, message: "vertex \(k) is (\(x), \(y))")
            }
            let limit = Self.maxAbsoluteCoordinate
            guard abs(x) <= limit, abs(y) <= limit else {
                return .skipped(
                    code: .outOfDomain,
                    message: "vertex \(k) is (\(x), \(y)), beyond ±\(limit) in any coordinate system")
            }
            xy[2 * k] = x
            xy[2 * k + 1] = y
        }

        switch family {
        case .point:
            return .built(
                Geometry(kind: .point, xy: [xy[0], xy[1]], partStarts: [0]),
                [])
        case .multiPoint:
            return .built(Geometry(kind: .multiPoint, xy: xy, partStarts: [0]), [])
        case .line, .polygon:
            let parts: [Range<Int>]
            switch partRanges(o, vertexCount: n) {
            case .success(let p): parts = p
            case .failure(let why): return .skipped(code: why.code, message: why.message)
            }
            if family == .polygon { return PolygonAssembler.assemble(xy: xy, parts: parts) }
            return LineAssembler.assemble(xy: xy, parts: parts)
        case .multiPatch:
            let parts: [Range<Int>]
            switch partRanges(o, vertexCount: n) {
            case .success(let p): parts = p
            case .failure(let why): return .skipped(code: why.code, message: why.message)
            }
            let types = o.panPartType.map { t in (0..<parts.count).map { t[$0] } } ?? []
            return MultiPatchPolygons.assemble(xy: xy, parts: parts, types: types)
        }
    }

    struct PartProblem: Error {
        var code: ReasonCode
        var message: String
    }

    /// Part ranges after the checks shapelib does not make.
    private func partRanges(_ o: SHPObject, vertexCount n: Int) -> Result<[Range<Int>], PartProblem> {
        let count = Int(o.nParts)
        guard count > 0, let starts = o.panPartStart else {
            return .failure(PartProblem(code: .badPartLayout, message: "\(n) vertices but no parts"))
        }
        guard starts[0] == 0 else {
            return .failure(
                PartProblem(code: .badPartLayout, message: "the first part starts at vertex \(starts[0]), not 0"))
        }
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(count)
        for p in 0..<count {
            let s = Int(starts[p])
            let e = p + 1 < count ? Int(starts[p + 1]) : n
            guard s >= 0, e <= n, s < e else {
                return .failure(
                    PartProblem(
                        code: .badPartLayout,
                        message: s == e ? "part \(p) is empty" : "part \(p) spans vertices \(s)..<\(e) of \(n)"))
            }
            ranges.append(s..<e)
        }
        return .success(ranges)
    }
}
