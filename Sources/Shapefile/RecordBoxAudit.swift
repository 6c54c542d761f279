/// Whether a record's stored box — what `ShapefileReader.keepsRecordBox` is shown instead of the record
/// (`storedBox`) — holds every vertex the record stores. A shard leaves a record unread by its box alone, so a box
/// that lies (a broken or hostile export) would make every shard skip a record one machine writes; a shard plan
/// audits every record with this while it hashes them, and a file with a record whose box does not hold is read
/// whole by every shard (docs/cluster.md).
public enum RecordBoxAudit {
    /// True when `content` (a record after its 8-byte header) stores a box that holds its vertices, or a box the
    /// reader never tests (a null or unknown shape; a point, whose box is the point; a box that is not finite or
    /// not ordered). False when a vertex lies outside the box or is not finite, or when the counts do not fit in
    /// the record (then the reader may read it otherwise than counted here: nothing is trusted).
    public static func boxHolds(content: UnsafeRawBufferPointer) -> Bool {
        guard content.count >= 4 else { return true }
        func int32(_ at: Int) -> Int {
            Int(Int32(littleEndian: content.loadUnaligned(fromByteOffset: at, as: Int32.self)))
        }
        func double(_ at: Int) -> Double {
            Double(bitPattern: UInt64(littleEndian: content.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
        }
        guard let (family, _, _) = ShapeType.describe(Int32(int32(0))), family != .point else { return true }
        guard content.count >= 36 else { return true }  // no box: `storedBox` is nil, the record is read
        let minX = double(4)
        let minY = double(12)
        let maxX = double(20)
        let maxY = double(28)
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite, minX <= maxX, minY <= maxY else {
            return true
        }
        let start: Int
        let points: Int
        if family == .multiPoint {
            guard content.count >= 40 else { return false }
            points = int32(36)
            start = 40
        } else {
            guard content.count >= 44 else { return false }
            let parts = int32(36)
            points = int32(40)
            guard parts >= 0, parts <= content.count else { return false }
            start = 44 + (family == .multiPatch ? 8 : 4) * parts
        }
        guard points >= 0, start <= content.count, points <= (content.count - start) / 16 else { return false }
        for i in 0..<points {
            let x = double(start + 16 * i)
            let y = double(start + 16 * i + 8)
            // Written so that NaN fails.
            guard x >= minX, x <= maxX, y >= minY, y <= maxY else { return false }
        }
        return true
    }
}
