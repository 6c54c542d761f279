import Foundation
import Checksum

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

    /// The digest of an `.shp` and `.dbf` in memory (see the type).
    static func compute(shp: UnsafeRawBufferPointer, dbf: UnsafeRawBufferPointer?) -> [UInt8]? {
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
            h.update(UnsafeRawBufferPointer(rebasing: shp[(at + 8)..<end]))
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
