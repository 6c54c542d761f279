/// The last few spilled record chunks the readers of a `RecordTable` read, so that a tile's records do not read
/// again the 64 KiB chunks the tile before read: the encode phase reads each tile's records in feature order with
/// a reader of its own (`TileEncodePass.records`, every tile's signature with `run`), and neighbouring tiles hold
/// features of the same chunks. A chunk is known by where it was spilled (offset and length in the scratch file,
/// which is only appended to), so what is kept never goes stale, even after a table is cut back (`truncate`).
struct RecentChunks {
    /// Chunks kept at most (1 MiB of 64 KiB chunks); the oldest goes first.
    static let capacity = 16
    private var kept: [(offset: UInt64, count: Int, bytes: [UInt8])] = []
    private var next = 0
    /// Chunks read from the scratch file (not found here).
    private(set) var reads = 0

    /// The chunk spilled at `offset` with `count` bytes, when kept.
    func bytes(offset: UInt64, count: Int) -> [UInt8]? {
        kept.first { $0.offset == offset && $0.count == count }?.bytes
    }

    /// Keeps a chunk just read from the scratch file, in place of the oldest when full.
    mutating func keep(offset: UInt64, count: Int, _ bytes: [UInt8]) {
        reads += 1
        if kept.count < Self.capacity {
            kept.append((offset, count, bytes))
        } else {
            kept[next] = (offset, count, bytes)
            next = (next + 1) % Self.capacity
        }
    }
}
