import Deflate
import Gzip
import KartpackCore

/// One block of a sort run in the scratch file: varint-coded pieces (`PieceEncoder`), raw-deflated when that
/// made it at least an eighth smaller.
package struct RunBlock: Sendable {
    package var offset: UInt64
    var storedBytes: Int
    var rawBytes: Int
    package var compressed: Bool
}

/// One sorted run: per zoom level, its blocks in tile order, and the pieces a rolled-back input left in it.
package struct SortRun: Sendable {
    var blocks: [Int: [RunBlock]] = [:]
    var pieces = 0
    /// Pieces to skip when reading: a piece is dropped when, for any entry, its feature index is at or above the
    /// entry's value for its layer (layers past the end: every piece). Set by `PieceSpool.rollback`.
    var drops: [[Int32]] = []

    func isDropped(layer: Int32, feature: Int32) -> Bool {
        for d in drops {
            let l = Int(layer)
            if l >= d.count || feature >= d[l] { return true }
        }
        return false
    }
}

/// The sort runs of a conversion in one scratch file (`SpillFile`): written as the pieces held in memory pass the
/// budget, k-way merged per zoom by `RunMerger`.
package final class SortRunStore: @unchecked Sendable {
    package let file: SpillFile
    /// Raw bytes per block: small enough that one block per run fits many runs in memory at merge time.
    let blockBytes: Int
    /// Deflate blocks (level 1) and keep the result where it saves at least an eighth.
    package let compress: Bool
    private(set) var runs: [SortRun] = []
    /// Uncompressed bytes of every block (for the report: what compression saved).
    private(set) var rawBytes: UInt64 = 0

    package init(file: SpillFile, blockBytes: Int, compress: Bool) {
        self.file = file
        self.blockBytes = blockBytes
        self.compress = compress
    }

    /// Bytes in the scratch file.
    var scratchBytes: UInt64 { file.size }

    /// Writes pieces already in (key, layer, feature, append) order as one run. `sorted` yields them in order.
    package func write(count: Int, _ sorted: (Int) -> TilePiece) throws(SpillError) {
        var run = SortRun()
        var encoder = PieceEncoder(capacity: blockBytes + 1024)
        var zoom = -1
        for i in 0..<count {
            let p = sorted(i)
            if p.tile.z != zoom || encoder.bytes.count >= blockBytes {
                if encoder.count > 0 { run.blocks[zoom, default: []].append(try store(encoder.bytes)) }
                encoder = PieceEncoder(capacity: blockBytes + 1024)
                zoom = p.tile.z
            }
            encoder.append(p)
        }
        if encoder.count > 0 { run.blocks[zoom, default: []].append(try store(encoder.bytes)) }
        run.pieces = count
        runs.append(run)
    }

    private func store(_ raw: [UInt8]) throws(SpillError) -> RunBlock {
        rawBytes += UInt64(raw.count)
        if compress, let packed = try? Deflate.compress(raw, level: 1, framing: .raw),
            packed.count <= raw.count - raw.count / 8
        {
            let at = try file.append(packed)
            return RunBlock(offset: at, storedBytes: packed.count, rawBytes: raw.count, compressed: true)
        }
        let at = try file.append(raw)
        return RunBlock(offset: at, storedBytes: raw.count, rawBytes: raw.count, compressed: false)
    }

    /// Marks pieces of rolled-back features in the runs from `firstRun` on (see `SortRun.drops`).
    func drop(fromRun firstRun: Int, thresholds: [Int32]) {
        for i in firstRun..<runs.count { runs[i].drops.append(thresholds) }
    }

    /// The bytes of one block, inflated.
    package func load(_ b: RunBlock) throws(SpillError) -> [UInt8] {
        let stored = try file.read(offset: b.offset, count: b.storedBytes)
        guard b.compressed else { return stored }
        do {
            let raw = try Gzip.inflateRaw(stored, maxOutput: b.rawBytes)
            guard raw.count == b.rawBytes else { throw SpillError.corrupt("block inflates to \(raw.count) bytes") }
            return raw
        } catch let e as SpillError {
            throw e
        } catch {
            throw .corrupt("block does not inflate: \(error)")
        }
    }
}

/// Reads one run's pieces of one zoom, block by block (one block in memory).
package struct RunCursor {
    package let store: SortRunStore
    package let run: Int
    package let zoom: Int
    private var blocks: ArraySlice<RunBlock>
    private var decoder: PieceDecoder?
    /// The run's rollback marks (`SortRun.isDropped`).
    private let marks: SortRun

    package init(store: SortRunStore, run: Int, zoom: Int) {
        self.store = store
        self.run = run
        self.zoom = zoom
        marks = store.runs[run]
        blocks = (marks.blocks[zoom] ?? [])[...]
    }

    /// The next piece not dropped by a rollback, or nil at the end. Pieces `skip` accepts (by layer and feature)
    /// are not decoded: their layer and feature go to `skipped` instead.
    package mutating func next(
        skipping skip: (Int32, Int32) -> Bool, into skipped: inout [(layer: Int32, feature: Int32)]
    ) throws(SpillError) -> TilePiece? {
        while true {
            if decoder == nil || decoder!.isAtEnd {
                guard let b = blocks.popFirst() else { return nil }
                decoder = PieceDecoder(bytes: try store.load(b), zoom: zoom)
            }
            let entry = try decoder!.next { l, f in marks.isDropped(layer: l, feature: f) || skip(l, f) }
            switch entry {
            case nil: continue
            case .piece(let p): return p
            case .skipped(let l, let f):
                // A rolled-back piece is not part of the run at all; a skipped one is counted by the caller.
                if !marks.isDropped(layer: l, feature: f) { skipped.append((l, f)) }
            }
        }
    }
}
