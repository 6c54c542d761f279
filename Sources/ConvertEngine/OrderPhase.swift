import Dispatch
import Foundation
import TileArchive

/// The pieces of a run in archive order, one zoom level at a time, and where each tile's pieces are: sorted in
/// memory when they fit the memory budget, else k-way merged from the sort runs in the scratch file.
package final class TileRuns: @unchecked Sendable {
    /// Sorted by (tile key, output layer, feature), when nothing was spilled.
    private var held: [TilePiece]
    /// Per zoom, the range of `held` of each tile, in archive order.
    private var heldByZoom: [Int: [Range<Int>]]
    private let store: SortRunStore?
    /// Whether merged batches are read a batch ahead on a thread of their own (`ReadAhead`; with more than one
    /// thread). The batches are the same either way.
    package var readsAhead = false

    package init(held: [TilePiece], byZoom: [Int: [Range<Int>]]) {
        self.held = held
        heldByZoom = byZoom
        store = nil
    }

    package init(store: SortRunStore) {
        held = []
        heldByZoom = [:]
        self.store = store
    }

    /// Sort runs written to the scratch file (0 when everything fitted the budget).
    var spilledRuns: Int { store?.runs.count ?? 0 }
    /// Bytes of the scratch file.
    var scratchBytes: UInt64 { store?.scratchBytes ?? 0 }

    /// The pieces of zoom `z` in archive order and the range of each tile's pieces in them (in tile order). With
    /// sort runs, each call merges that zoom anew and only its pieces are in memory.
    package func zoom(_ z: Int) throws(SpillError) -> (pieces: [TilePiece], runs: [Range<Int>]) {
        guard let store else { return (held, heldByZoom[z] ?? []) }
        return try RunMerger(store: store).merge(zoom: z)
    }

    /// The pieces of zoom `z` in batches of whole tiles of about `maxPieces` pieces each (`ZoomStream`), for a
    /// caller that needs one tile at a time: with sort runs only one batch is in memory. Held pieces come as one
    /// batch. Batches joined are what `zoom(z)` gives.
    func forEachBatch(
        zoom z: Int, maxPieces: Int, _ body: (_ pieces: [TilePiece], _ runs: [Range<Int>]) throws -> Void
    ) throws {
        try forEachBatch(zoom: z, maxPieces: maxPieces, skipping: nil) { b in
            if !b.runs.isEmpty { try body(b.pieces, b.runs) }
        }
    }

    /// The batches of `forEachBatch(zoom:maxPieces:_:)` without the pieces `skip` accepts (by layer and feature),
    /// which each batch lists as `skipped`; merged runs do not even decode them. Tiles left with no piece are left
    /// out; a last batch may hold only skipped pieces. Held pieces come as one batch; without `skip` its pieces
    /// are every held piece (of every zoom) and `runs` index into them.
    func forEachBatch(
        zoom z: Int, maxPieces: Int, skipping skip: ((Int32, Int32) -> Bool)?,
        _ body: (ZoomStream.Batch) throws -> Void
    ) throws {
        guard let store else {
            let runs = heldByZoom[z] ?? []
            guard !runs.isEmpty else { return }
            guard let skip else { return try body(ZoomStream.Batch(pieces: held, runs: runs, skipped: [])) }
            var batch = ZoomStream.Batch(pieces: [], runs: [], skipped: [])
            for run in runs {
                let first = batch.pieces.count
                for p in held[run] {
                    if skip(p.layer, p.feature) {
                        batch.skipped.append((p.layer, p.feature))
                    } else {
                        batch.pieces.append(p)
                    }
                }
                if batch.pieces.count > first { batch.runs.append(first..<batch.pieces.count) }
            }
            return try body(batch)
        }
        let stream = try ZoomStream(store: store, zoom: z, skip: skip ?? { _, _ in false })
        guard readsAhead else {
            while let batch = try stream.next(maxPieces: maxPieces) { try body(batch) }
            return
        }
        // The next batch is merged and decoded on a thread of its own while `body` works on this one.
        let ahead = ReadAhead { () throws(SpillError) in try stream.next(maxPieces: maxPieces) }
        defer { ahead.stop() }
        while let batch = try ahead.next() { try body(batch) }
    }

    /// Gives the scratch space back (the file has no name: closing it frees it).
    package func close() { store?.file.close() }

    /// Lets the held pieces go, on a thread of its own: a million pieces with their geometry take about a second
    /// to free one by one, which the caller (writing the package) need not wait for until it is done. The runs are
    /// empty after. The caller waits for the thread (`PiecesRelease.wait`) before it returns, so a process that
    /// converts again (`package`, one region after another) never holds two conversions' pieces.
    package func releaseInBackground() -> PiecesRelease? {
        guard !held.isEmpty else { return nil }
        let release = PiecesRelease(held)
        (held, heldByZoom) = ([], [:])
        return release
    }
}

/// Pieces being freed on a thread of their own (`TileRuns.releaseInBackground`); `wait` returns once they are.
package final class PiecesRelease: @unchecked Sendable {
    private var pieces: [TilePiece]?
    private let done = DispatchSemaphore(value: 0)
    private var waited = false

    fileprivate init(_ pieces: [TilePiece]) {
        self.pieces = pieces
        let thread = Thread { [self] in
            self.pieces = nil
            done.signal()
        }
        thread.start()
    }

    /// Blocks until the pieces are freed; once (later calls return at once).
    package func wait() {
        guard !waited else { return }
        waited = true
        done.wait()
    }
}

/// Phase 3 of `convert`: tile pieces into the archive writer's declared tile order (Hilbert TileID for PMTiles,
/// z/x/y for MBTiles), grouped into one run per tile. Both orders are zoom-major, so each zoom's tiles are one
/// stretch. Pieces that passed the memory budget are already in sorted runs (`PieceSpool`): the held rest becomes
/// the last run, and `TileRuns` merges them per zoom.
///
/// Input: the feature phase's `PieceSpool`. Output: `TileRuns`. Settings: the writer's tile order alone.
package struct OrderPhase {
    package let order: TileOrder
    /// Threads for the in-memory sort (`PieceSpool.sorted`); the order does not depend on them.
    package var threads = 1

    package init(order: TileOrder, threads: Int = 1) {
        self.order = order
        self.threads = threads
    }

    package func run(_ spool: inout PieceSpool) throws(SpillError) -> TileRuns {
        var held: [TilePiece]
        let store: SortRunStore?
        (held, store) = try spool.finish()
        if let store {
            let runs = TileRuns(store: store)
            runs.readsAhead = threads > 1
            return runs
        }
        return run(&held)
    }

    /// Sorts pieces held in memory (consumed: `pieces` is left empty).
    package func run(_ pieces: inout [TilePiece]) -> TileRuns {
        let sorted = PieceSpool.sorted(&pieces, order: order, threads: threads)
        var byZoom: [Int: [Range<Int>]] = [:]
        var start = 0
        while start < sorted.count {
            var end = start + 1
            while end < sorted.count && sorted[end].key == sorted[start].key { end += 1 }
            byZoom[sorted[start].tile.z, default: []].append(start..<end)
            start = end
        }
        return TileRuns(held: sorted, byZoom: byZoom)
    }
}
