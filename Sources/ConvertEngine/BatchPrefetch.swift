import Dispatch
import Foundation
import KartpackCore
import Synchronization

/// Reads an input set's batches (`OpenedSet.nextBatch`) on a thread of its own, one batch ahead of the feature
/// phase's thread (issue 34).
///
/// With few cheap features per record (points), the feature phase's thread is its bottleneck: it read each batch
/// (records, attributes, ids) and then added the one before to the `TiledLayers`, one after the other, while the
/// workers had little to do. Here the next batch is read while the thread adds results. Batches come in file
/// order, so nothing depends on the thread count: what a read reports is held back (`DiagnosticSink.holding`) with
/// the batch (`ReadBatch`), and a read's error too. While the reader thread runs nothing else touches the set's
/// reader or its ids and counts; `stop` waits for it, so the set can be finished or rejected.
final class BatchPrefetch: @unchecked Sendable {
    private let layer: OpenedSet
    private let size: Int
    private let diagnostics: DiagnosticSink
    /// Asks the reader for one more batch (or, with `stopping`, to end).
    private let go = DispatchSemaphore(value: 0)
    /// A batch is in `item`.
    private let ready = DispatchSemaphore(value: 0)
    /// The reader thread ended.
    private let ended = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    /// Written by the reader before `ready`, taken by `next` after it.
    private var item: ReadBatch?
    /// The reader read its last batch (the end, or an error): it asks for no more.
    private var last = false
    private var stopped = false

    /// Starts reading `layer`'s first batch of up to `size` features.
    init(_ layer: OpenedSet, size: Int, diagnostics: DiagnosticSink) {
        self.layer = layer
        self.size = size
        self.diagnostics = diagnostics
        let thread = Thread { [self] in run() }
        thread.stackSize = 16 << 20
        thread.start()
        go.signal()
    }

    /// The reader thread: a batch each time it is asked, until the end of the set, an error or `stop`.
    private func run() {
        defer { ended.signal() }
        while true {
            go.wait()
            if stopping.load(ordering: .acquiring) { return }
            let read = ReadBatch.read(layer, size: size, diagnostics: diagnostics)
            let end = read.isLast
            item = read
            ready.signal()
            if end { return }
        }
    }

    /// The next batch as read (its jobs nil at the end of the set); starts reading the one after it.
    func next() -> ReadBatch {
        guard !last else { return ReadBatch(jobs: .success(nil), diagnostics: [], recordsRead: 0) }
        ready.wait()
        guard let taken = item else { preconditionFailure("BatchPrefetch: ready without a batch") }
        item = nil
        if taken.isLast { last = true } else { go.signal() }
        return taken
    }

    /// Ends the reader thread (after the read in progress, if any) and waits for it; once.
    func stop() {
        guard !stopped else { return }
        stopped = true
        stopping.store(true, ordering: .releasing)
        go.signal()
        ended.wait()
    }

    deinit { stop() }
}
