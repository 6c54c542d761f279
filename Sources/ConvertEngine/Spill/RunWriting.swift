import Dispatch
import TileArchive
import MallocTuning

/// A sort run being sorted and written on another thread while the feature phase goes on adding pieces
/// (`PieceSpool` with `background`): the workers keep cutting features instead of waiting for the scratch file.
///
/// It owns the pieces it writes and frees each piece's geometry once encoded, so the run's memory shrinks while the
/// spool's next buffer fills. The run it appends to the store is the one a synchronous spill writes: output does
/// not depend on it. The store is only touched by this thread until `wait` returns.
package final class RunWriting: @unchecked Sendable {
    private let done = DispatchGroup()
    /// Set by the writer before `done` leaves; read after `wait`.
    private var failure: SpillError?
    /// The pieces of the run, only touched by the writer (held here so nothing else keeps a reference to them).
    private var pieces: [TilePiece]

    /// Starts writing `pieces` as the next run of `store`, in `order`.
    package init(pieces: consuming [TilePiece], order: TileOrder, store: SortRunStore) {
        self.pieces = pieces
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            do throws(SpillError) {
                try Self.write(&self.pieces, order: order, to: store)
            } catch {
                failure = error
            }
            done.leave()
        }
    }

    /// Waits until the run is written (at once when it is); throws what writing it threw. Safe to call again.
    package func wait() throws(SpillError) {
        done.wait()
        if let failure { throw failure }
    }

    /// Sorts `pieces` and writes them as one run, freeing their geometry as they go (and `pieces` after): held by
    /// nothing else, each geometry's arrays are gone once written. The freed pages go back to the system after.
    package static func write(_ pieces: inout [TilePiece], order: TileOrder, to store: SortRunStore)
        throws(SpillError)
    {
        let sorted = PieceSpool.sortedIndices(&pieces, order: order)
        try store.write(count: sorted.count) { i in
            let p = pieces[sorted[i]]
            pieces[sorted[i]].geometry = .points([])
            return p
        }
        pieces = []
        // The pieces' geometry arrays were made by many threads: give their pages back before the next run fills.
        ProcessHeap.giveBackFreePages()
    }
}
