import Foundation
import KartpackCore

/// The finished tiles of a package in archive order, read back (`EncodedTiles.forEachTile`) and hashed for the
/// writer's deduplication on a thread of their own, a few batches ahead of the thread that writes the package
/// (issue 34: the write was the last stage on one core). The tiles come in the order `forEachTile` gives them,
/// zoom by zoom, so the package does not depend on the thread count; a read's error comes after the tiles read
/// before it, where the write on one thread would have met it. While the reader runs nothing else may touch the
/// tiles; `stop` waits for it.
final class TilePrefetch: @unchecked Sendable {
    /// One tile, its bytes and their hash (`hash`, nil without one).
    struct Tile {
        var coordinate: TileCoordinate
        var bytes: [UInt8]
        var hash: UInt64?
    }

    /// A batch handed over at once: this many tiles, or fewer of at least `batchBytes` together. At most
    /// `batchesAhead` batches wait, so the tiles read ahead are a few MiB at most (and one batch's last tile).
    static let batchTiles = 256
    static let batchBytes = 1 << 20
    static let batchesAhead = 4

    private let condition = NSCondition()
    /// Batches read and not yet taken (guarded by `condition`, as are the two below).
    private var ready: [[Tile]] = []
    /// How the reader ended, once it did.
    private var outcome: Result<Void, any Error>?
    private var stopping = false
    private var stopped = false

    private struct Stopped: Error {}

    /// Starts reading `zooms` of `tiles`, hashing each tile's bytes with `hash`.
    init(
        _ tiles: EncodedTiles, zooms: ClosedRange<Int>, hash: @escaping @Sendable ([UInt8]) -> UInt64?
    ) {
        let thread = Thread { [self] in read(tiles, zooms: zooms, hash: hash) }
        thread.start()
    }

    private func read(_ tiles: EncodedTiles, zooms: ClosedRange<Int>, hash: ([UInt8]) -> UInt64?) {
        var batch: [Tile] = []
        var bytesInBatch = 0
        let result = Result { () throws -> Void in
            for z in zooms {
                try tiles.forEachTile(zoom: z) { tile, bytes in
                    batch.append(Tile(coordinate: tile, bytes: bytes, hash: hash(bytes)))
                    bytesInBatch += bytes.count
                    if batch.count == Self.batchTiles || bytesInBatch >= Self.batchBytes {
                        try hand(batch)
                        batch = []
                        bytesInBatch = 0
                    }
                }
            }
            if !batch.isEmpty { try hand(batch) }
        }
        condition.lock()
        outcome = result
        condition.broadcast()
        condition.unlock()
    }

    /// Queues a batch once fewer than `batchesAhead` wait; throws `Stopped` after `stop`.
    private func hand(_ batch: [Tile]) throws {
        condition.lock()
        defer { condition.unlock() }
        while ready.count >= Self.batchesAhead, !stopping { condition.wait() }
        if stopping { throw Stopped() }
        ready.append(batch)
        condition.broadcast()
    }

    /// The next batch of tiles, nil after the last; throws what reading threw, after the tiles read before it.
    func next() throws -> [Tile]? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty, outcome == nil { condition.wait() }
        if !ready.isEmpty {
            condition.broadcast()
            return ready.removeFirst()
        }
        try outcome?.get()
        return nil
    }

    /// Ends the reader (when it has not ended) and waits for it; more calls do nothing.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return }
        stopping = true
        condition.broadcast()
        while outcome == nil { condition.wait() }
        stopped = true
    }
}
