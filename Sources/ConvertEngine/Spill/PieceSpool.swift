import KartpackCore
import TileArchive

/// The tile pieces of a conversion as the feature phase adds them (in feature order), with a memory budget: once
/// the pieces held in memory pass it, they are sorted into a run in the scratch file (`SortRunStore`) and
/// forgotten. `OrderPhase` then merges the runs per zoom (or, when nothing was spilled, sorts the pieces in memory
/// as before). Which pieces end up in which run depends only on the input order, never on the thread count.
///
/// With `background`, a run is sorted and written on another thread (`RunWriting`) while pieces go on being added;
/// one run at a time: the next spill, a mark, a rollback and `finish` wait for it first.
package struct PieceSpool: Sendable {
    /// Pieces not yet in a run, in the order they were added.
    private(set) var pieces: [TilePiece] = []
    /// Estimated heap bytes of `pieces` (`PieceSpool.bytes(of:)`).
    private(set) var heldBytes = 0
    /// Pieces added in all.
    private(set) var added = 0
    package let budget: Int
    package let order: TileOrder
    package let scratch: ScratchPlace?
    /// Runs are written on another thread while pieces are added.
    let background: Bool
    private(set) var store: SortRunStore?
    /// The run being written in the background, if any.
    private var writing: RunWriting?

    /// A spool that never spills (tests, and callers without a scratch folder).
    package init(order: TileOrder = .hilbert) {
        budget = Int.max
        self.order = order
        scratch = nil
        background = false
    }

    package init(budget: Int, order: TileOrder, scratch: ScratchPlace, background: Bool = false) {
        self.budget = budget
        self.order = order
        self.scratch = scratch
        self.background = background
        pieces.reserveCapacity(Self.reserved(budget: budget))
    }

    /// The pieces a spool with memory budget `budget` reserves room for at once: as many as the budget holds
    /// (`bytes(of:)` counts each piece's place in the array against it, so the array never grows past this
    /// before a spill). Reserved address space costs nothing until a piece is written into it, while an array
    /// that doubles as it fills copies every piece at each step and touches fresh pages twice over (a tenth of
    /// a 100,000-stand night's CPU). At most 2^23 pieces.
    static func reserved(budget: Int) -> Int {
        min(budget / MemoryLayout<TilePiece>.stride + 1, 1 << 23)
    }

    /// Adds a piece (spilled later, at `spillIfOverBudget` after each feature, so a feature is never cut in two).
    package mutating func append(_ p: TilePiece) {
        pieces.append(p)
        heldBytes += Self.bytes(of: p)
        added += 1
    }

    package var count: Int { added }

    /// Sort runs written so far (waits for one being written; its error, if any, comes from the next spill).
    var spilledRuns: Int {
        try? writing?.wait()
        return store?.runs.count ?? 0
    }

    /// Waits for the run being written in the background and throws what writing it threw.
    private mutating func settle() throws(SpillError) {
        defer { writing = nil }
        try writing?.wait()
    }

    /// Roughly what a piece costs on the heap: the struct in the array and its geometry's arrays (headers,
    /// elements and malloc's own word).
    package static func bytes(of p: TilePiece) -> Int {
        MemoryLayout<TilePiece>.stride + p.geometry.heapBytes
    }

    /// Writes the held pieces as a sort run when they are over the budget.
    package mutating func spillIfOverBudget() throws(SpillError) {
        guard heldBytes > budget, !pieces.isEmpty else { return }
        try spill()
    }

    /// Sorts the held pieces into a new run and empties the buffer; with `background` (and not `last`) the run is
    /// written on another thread, after the one before it is done.
    mutating func spill(last: Bool = false) throws(SpillError) {
        try settle()
        guard let scratch, !pieces.isEmpty else { return }
        if store == nil { store = try scratch.makeStore(budget: budget) }
        guard let store else { return }
        try scratch.checkSpace(forRunOf: heldBytes, store: store)
        var full: [TilePiece] = []
        full.reserveCapacity(pieces.count)
        swap(&full, &pieces)
        heldBytes = 0
        if background, !last {
            writing = RunWriting(pieces: consume full, order: order, store: store)
        } else {
            try RunWriting.write(&full, order: order, to: store)
        }
    }

    /// Sets every piece's key in `order` and returns the indices of `pieces` in (key, layer, feature, index)
    /// order: the one order of pieces, with ties kept in the order they were added. With `threads` > 1 a large
    /// array's keys are made and sorted on two threads (`ParallelSort`: the same order).
    static func sortedIndices(_ pieces: inout [TilePiece], order: TileOrder, threads: Int = 1) -> [Int] {
        var keys = PieceSortKey.make(&pieces, order: order, threads: threads)
        return ParallelSort.sorted(&keys, threads: threads) { $0.index }
    }

    /// Pieces below which `sortedIndices` sorts on one thread.
    static let parallelSortMinimum = ParallelSort.minimum

    /// What `rollback` needs to forget everything added after this point.
    package struct Mark: Sendable {
        fileprivate var runs: Int
        fileprivate var held: Int
        fileprivate var added: Int
    }

    /// Waits for a run being written, so the mark counts it.
    func mark() -> Mark { Mark(runs: spilledRuns, held: pieces.count, added: added) }

    /// Forgets the pieces added since `m`. `recordCounts` are the output layers' record counts at the mark: a piece
    /// added since has a feature index at or above its layer's count (or a layer that did not exist yet).
    mutating func rollback(to m: Mark, recordCounts: [Int]) {
        if spilledRuns == m.runs {
            pieces.removeSubrange(m.held...)
        } else {
            // Everything held now came after the mark; runs written since hold the rest.
            pieces.removeAll(keepingCapacity: true)
            store?.drop(fromRun: m.runs, thresholds: recordCounts.map { Int32(clamping: $0) })
        }
        heldBytes = pieces.reduce(0) { $0 + Self.bytes(of: $1) }
        added = m.added
    }

    /// Hands the pieces on and leaves the spool empty: the runs (the held pieces written as a last run), or the
    /// held pieces when nothing was spilled.
    package mutating func finish() throws(SpillError) -> (held: [TilePiece], store: SortRunStore?) {
        try settle()
        if store != nil { try spill(last: true) }
        defer {
            pieces = []
            heldBytes = 0
        }
        return (pieces, store)
    }
}

extension PieceSpool {
    /// The spool of a conversion: its memory budget, the archive's tile order and scratch folder.
    package init(spill: SpillSettings) {
        self.init(budget: spill.budget, order: spill.tileOrder, scratch: spill.scratch, background: spill.background)
    }
}
