import Foundation
import Checksum
import Shapefile

/// A digest of a Shapefile set's records that does not depend on their order: the nightly fingerprint of a re-export
/// of the same features in another record order is the same (issue 37), so `run` finds its package up to date and
/// the package's `kartpack_fingerprint` (and so its bytes) does not change.
///
/// What is hashed: the `.shp` header (100 bytes: shape type, file length, bounds), the `.dbf` header (field
/// descriptors; its last-update date, bytes 1–3, left out) and, per record, SHA-256 over its `.shp` content (without
/// the record number) followed by its `.dbf` row; the per-record digests are added up as four 64-bit lanes (a sum:
/// the order falls out, a record twice counts twice), then the record count. The `.shx` only indexes the `.shp`
/// and is not hashed.
package enum ShapefileRecordDigest {
    /// The digest of the set `shp` (+ `dbf`), or nil when the files cannot be split into matching records (the
    /// fingerprint then hashes the files as they are and the reader reports what is wrong).
    package static func digest(shp: String, dbf: String?) -> [UInt8]? {
        guard let s = try? Data(contentsOf: URL(fileURLWithPath: shp), options: .alwaysMapped) else { return nil }
        var d: Data?
        if let dbf {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: dbf), options: .alwaysMapped) else {
                return nil
            }
            d = data
        }
        return s.withUnsafeBytes { sp in
            (d ?? Data()).withUnsafeBytes { dp in compute(shp: sp, dbf: d == nil ? nil : dp) }
        }
    }

    /// The digest of the set `shp` (+ `dbf`) and, for a shard plan, why its stored record boxes cannot be trusted
    /// (nil when they can): a record whose box does not hold its vertices (`RecordBoxAudit`), a `.shx` that does
    /// not index the records in file order (the reader finds records through it; `shx` nil: there is none), or
    /// records that cannot be split. Costs no decode beyond the digest's own pass over the records.
    package static func digestAuditingBoxes(shp: String, dbf: String?, shx: String?) -> (
        digest: [UInt8]?, boxDoubt: String?
    ) {
        let index = shx.flatMap { try? Data(contentsOf: URL(fileURLWithPath: $0), options: .alwaysMapped) }
        var doubt: String? = index == nil ? "it has no readable .shx" : nil
        var offsets: [(offset: Int, words: Int)] = []
        guard let s = try? Data(contentsOf: URL(fileURLWithPath: shp), options: .alwaysMapped) else {
            return (nil, "its records cannot be read")
        }
        var d: Data?
        if let dbf {
            guard let data = try? Data(contentsOf: URL(fileURLWithPath: dbf), options: .alwaysMapped) else {
                return (nil, "its records cannot be read")
            }
            d = data
        }
        let digest = s.withUnsafeBytes { sp in
            (d ?? Data()).withUnsafeBytes { dp in
                compute(shp: sp, dbf: d == nil ? nil : dp) { record, offset, words, content in
                    offsets.append((offset, words))
                    if doubt == nil, !RecordBoxAudit.boxHolds(content: content) {
                        doubt = "record \(record + 1)'s stored box does not hold its vertices"
                    }
                }
            }
        }
        guard let digest else { return (nil, "its records cannot be split in file order") }
        if doubt == nil, let index, let record = firstIndexMismatch(index, offsets) {
            doubt = "its .shx does not index the records in file order (from record \(record + 1))"
        }
        return (digest, doubt)
    }

    /// Nil when the `.shx` `index` lists exactly `records` (byte offset, length in 16-bit words) in order; else the
    /// first record (0-based) it does not list in its place (the count of the shorter list when only the lengths
    /// differ).
    static func firstIndexMismatch(_ index: Data, _ records: [(offset: Int, words: Int)]) -> Int? {
        let listed = index.count >= 100 ? (index.count - 100) / 8 : 0
        return index.withUnsafeBytes { x -> Int? in
            for (i, r) in records.prefix(listed).enumerated() {
                let at = 100 + 8 * i
                let offset = Int(UInt32(bigEndian: x.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                let words = Int(UInt32(bigEndian: x.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)))
                guard offset * 2 == r.offset, words == r.words else { return i }
            }
            return index.count == 100 + 8 * records.count ? nil : min(listed, records.count)
        }
    }

    /// The digest of an `.shp` and `.dbf` in memory (see the type); `visit` sees each record (0-based number, byte
    /// offset, content length in 16-bit words, content).
    static func compute(
        shp: UnsafeRawBufferPointer, dbf: UnsafeRawBufferPointer?,
        visit: ((Int, Int, Int, UnsafeRawBufferPointer) -> Void)? = nil
    ) -> [UInt8]? {
        guard shp.count >= 100 else { return nil }
        var header = SHA256()
        header.update(UnsafeRawBufferPointer(rebasing: shp[0..<100]))
        var rows: (start: Int, length: Int, count: Int)?
        if let dbf {
            guard dbf.count >= 32 else { return nil }
            let count = Int(UInt32(littleEndian: dbf.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
            let start = Int(UInt16(littleEndian: dbf.loadUnaligned(fromByteOffset: 8, as: UInt16.self)))
            let length = Int(UInt16(littleEndian: dbf.loadUnaligned(fromByteOffset: 10, as: UInt16.self)))
            guard start >= 32, length > 0, start <= dbf.count, count <= (dbf.count - start) / length else {
                return nil
            }
            var head = Array(dbf[0..<start])
            head[1] = 0
            head[2] = 0
            head[3] = 0
            header.update(head)
            rows = (start, length, count)
        }
        var lanes = [UInt64](repeating: 0, count: 4)
        var at = 100
        var records = 0
        while at + 8 <= shp.count {
            let words = Int(UInt32(bigEndian: shp.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)))
            let end = at + 8 + 2 * words
            guard end <= shp.count else { return nil }
            var h = SHA256()
            let content = UnsafeRawBufferPointer(rebasing: shp[(at + 8)..<end])
            h.update(content)
            visit?(records, at, words, content)
            if let rows, let dbf {
                guard records < rows.count else { return nil }
                let r = rows.start + records * rows.length
                h.update(UnsafeRawBufferPointer(rebasing: dbf[r..<(r + rows.length)]))
            }
            let digest = h.finalize()
            for k in 0..<4 {
                lanes[k] &+= digest[(8 * k)..<(8 * k + 8)].reduce(0) { $0 << 8 | UInt64($1) }
            }
            at = end
            records += 1
        }
        if let rows, rows.count != records { return nil }
        var out = header.finalize()
        for v in lanes + [UInt64(records)] {
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: v >> UInt64(shift)))
            }
        }
        return out
    }
}
