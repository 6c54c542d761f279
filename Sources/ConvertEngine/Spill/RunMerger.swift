/// The k-way merge of sort runs for one zoom: pieces in (tile key, layer, feature) order; equal pieces keep the
/// order they were added in (earlier runs first, and a run keeps its own order), so the result is the one sort of
/// everything in memory would give.
package struct RunMerger {
    package let store: SortRunStore

    /// Every piece of zoom `z` from every run, in order, and the range of each tile's pieces.
    package func merge(zoom z: Int) throws(SpillError) -> (pieces: [TilePiece], runs: [Range<Int>]) {
        guard let b = try ZoomStream(store: store, zoom: z).next(maxPieces: .max) else { return ([], []) }
        return (b.pieces, b.runs)
    }

    /// The order of merged pieces: (key, layer, feature), then the run they came from.
    @inline(__always)
    package static func precedes(_ a: TilePiece, _ ra: Int, _ b: TilePiece, _ rb: Int) -> Bool {
        if a.key != b.key { return a.key < b.key }
        if a.layer != b.layer { return a.layer < b.layer }
        if a.feature != b.feature { return a.feature < b.feature }
        return ra < rb
    }
}

/// One zoom's merged pieces, whole tiles at a time: what `RunMerger.merge` gives, cut into batches of tiles, so a
/// caller can hold one batch instead of the zoom (a tile is never cut: a batch holds at least one whole tile).
///
/// A `skip` predicate (layer, feature) leaves pieces the caller will not use out of the batches without decoding
/// them; each batch says which (layer, feature) it passed over, so the caller can still count them as read.
package final class ZoomStream {
    /// Tiles of merged pieces, each tile's range in them, and the pieces passed over while reading them.
    package struct Batch {
        var pieces: [TilePiece]
        package var runs: [Range<Int>]
        package var skipped: [(layer: Int32, feature: Int32)]
    }

    private var cursors: [RunCursor]
    private var heads: [TilePiece?] = []
    /// Each head's (key, layer, feature), what the heap compares (without copying the pieces).
    private var order: [(key: UInt64, layer: Int32, feature: Int32)] = []
    private var heap = MinHeap([]) { _, _ in false }
    /// The first piece of the next batch (read to find where the last tile of a batch ended).
    private var pending: TilePiece?
    private let skip: (Int32, Int32) -> Bool
    /// Passed over since the last batch was given out.
    private var skipped: [(layer: Int32, feature: Int32)] = []

    package init(store: SortRunStore, zoom z: Int, skip: @escaping (Int32, Int32) -> Bool = { _, _ in false })
        throws(SpillError)
    {
        self.skip = skip
        cursors = store.runs.indices.map { RunCursor(store: store, run: $0, zoom: z) }
        for i in cursors.indices { heads.append(try cursors[i].next(skipping: skip, into: &skipped)) }
        order = heads.map { Self.place($0) }
        heap = MinHeap(heads.indices.filter { heads[$0] != nil }) { [unowned self] a, b in
            Self.precedes(self.order[a], a, self.order[b], b)
        }
    }

    private static func place(_ p: TilePiece?) -> (key: UInt64, layer: Int32, feature: Int32) {
        p.map { ($0.key, $0.layer, $0.feature) } ?? (0, 0, 0)
    }

    /// `RunMerger.precedes` on the heads' places.
    @inline(__always)
    private static func precedes(
        _ a: (key: UInt64, layer: Int32, feature: Int32), _ ra: Int, _ b: (key: UInt64, layer: Int32, feature: Int32),
        _ rb: Int
    ) -> Bool {
        if a.key != b.key { return a.key < b.key }
        if a.layer != b.layer { return a.layer < b.layer }
        if a.feature != b.feature { return a.feature < b.feature }
        return ra < rb
    }

    /// The next tiles, about `maxPieces` pieces (more when one tile has more), with each tile's range in them; nil
    /// at the end of the zoom. The last batch may hold no tile, only pieces passed over after the last kept one.
    package func next(maxPieces: Int) throws(SpillError) -> Batch? {
        var out: [TilePiece] = []
        var tiles: [Range<Int>] = []
        var start = 0
        if let p = pending {
            out.append(p)
            pending = nil
        }
        while let i = heap.top {
            let p = heads[i]!
            heads[i] = try cursors[i].next(skipping: skip, into: &skipped)
            order[i] = Self.place(heads[i])
            if heads[i] == nil { heap.pop() } else { heap.siftTopDown() }
            if let last = out.last, last.key != p.key {
                tiles.append(start..<out.count)
                start = out.count
                if out.count >= maxPieces {
                    pending = p
                    return take(out, tiles)
                }
            }
            out.append(p)
        }
        guard !out.isEmpty || !skipped.isEmpty else { return nil }
        if !out.isEmpty { tiles.append(start..<out.count) }
        return take(out, tiles)
    }

    private func take(_ pieces: [TilePiece], _ runs: [Range<Int>]) -> Batch {
        defer { skipped = [] }
        return Batch(pieces: pieces, runs: runs, skipped: skipped)
    }
}

/// A binary min-heap of small integers under a caller's order; the order may change for the top element only
/// (`siftTopDown` after it did).
package struct MinHeap {
    private var items: [Int]
    private let less: (Int, Int) -> Bool

    package init(_ items: [Int], less: @escaping (Int, Int) -> Bool) {
        self.items = []
        self.less = less
        for i in items { push(i) }
    }

    package var top: Int? { items.first }

    mutating func push(_ v: Int) {
        items.append(v)
        var c = items.count - 1
        while c > 0 {
            let p = (c - 1) / 2
            guard less(items[c], items[p]) else { break }
            items.swapAt(c, p)
            c = p
        }
    }

    mutating func pop() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        siftTopDown()
    }

    mutating func siftTopDown() {
        var p = 0
        let n = items.count
        while true {
            let l = 2 * p + 1
            let r = l + 1
            var m = p
            if l < n && less(items[l], items[m]) { m = l }
            if r < n && less(items[r], items[m]) { m = r }
            guard m != p else { return }
            items.swapAt(p, m)
            p = m
        }
    }
}
