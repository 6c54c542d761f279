import Foundation
import Synchronization

/// Long-lived worker threads that each own a private, non-Sendable state (a GEOS context, PROJ transformers)
/// for their whole life, and process batches of inputs with results returned in input order.
///
/// The state is created on the worker's own thread and never leaves it, so C handles are never shared. With
/// one thread the work runs inline on the caller's thread. Results do not depend on the thread count: outputs are
/// stored by input index. `submit` returns at once and any number of batches may be in flight: the workers take
/// the next input of the oldest batch, then of the next one, so a worker that finished its share of a batch goes
/// on with the later batches while another is busy with one long input (a coastline of half a million vertices).
/// `collect` returns the batches in the order they were submitted. A worker busy with one long input may offer
/// parts of it to idle workers (`WorkerAssistance`), which take offers before inputs.
package final class WorkerTeam<State, Input: Sendable, Output: Sendable> {
    /// One batch in flight: its first input's place in the queue, its size, the inputs not finished yet.
    private struct Batch {
        var start: Int
        var count: Int
        var remaining: Int
    }

    /// The inputs of every batch in flight, in submission order (`base` is the place of `inputs[0]`).
    private struct Queue {
        var inputs: [Input?] = []
        var outputs: [Output?] = []
        var batches: [Batch] = []
        var base = 0
        /// The place of the next input to take; `end` is one past the last submitted.
        var next = 0
        var end = 0
    }

    private final class Shared: Sendable {
        let queue = Mutex(Queue())
        /// Signalled when inputs were submitted (once per worker that may take one), once per assistance offer and
        /// once per worker to stop; a worker waits only when it finds neither an offer nor an input.
        let available: DispatchSemaphore
        /// One signal per batch finished (a later batch's signal only makes `collect` look again).
        let finished = DispatchSemaphore(value: 0)
        let exited = DispatchSemaphore(value: 0)
        let stopped = Atomic<Bool>(false)

        init(available: DispatchSemaphore) { self.available = available }
    }

    /// What a worker takes: an assistance offer or the next input.
    private enum Taken {
        case offer(WorkerAssistance<State>.Offer)
        case input(place: Int, Input)
    }

    private let shared: Shared
    package let threads: Int
    private var inlineState: State?
    private let makeState: @Sendable () -> State
    private let work: @Sendable (inout State, Input) -> Output
    /// With one thread: the batches submitted and not collected (they run in `collect`).
    private var inlinePending: [[Input]] = []
    /// With more threads: how many batches are in flight.
    private var inFlight = 0

    /// Starts `threads` workers. `makeState` runs once on each worker thread; `work` runs for each input. The
    /// workers also run the offers made to `assistance` (with one thread there is no one to offer work to).
    package init(
        threads: Int, assistance: WorkerAssistance<State>? = nil, makeState: @escaping @Sendable () -> State,
        work: @escaping @Sendable (inout State, Input) -> Output
    ) {
        self.threads = max(1, threads)
        shared = Shared(available: assistance?.wake ?? DispatchSemaphore(value: 0))
        self.makeState = makeState
        self.work = work
        guard self.threads > 1 else { return }
        for _ in 0..<self.threads {
            let shared = shared
            let t = Thread {
                var state = makeState()
                while let taken = Self.take(shared, assistance: assistance) {
                    guard case .input(let place, let input) = taken else {
                        if case .offer(let offer) = taken { offer(&state) }
                        continue
                    }
                    let out = work(&state, input)
                    let batchDone = shared.queue.withLock { q in
                        q.outputs[place - q.base] = out
                        guard let b = q.batches.firstIndex(where: { place < $0.start + $0.count }) else {
                            return false
                        }
                        q.batches[b].remaining -= 1
                        return q.batches[b].remaining == 0
                    }
                    // Only a finished batch can end `collect`'s wait: a signal per input woke the collecting
                    // thread (a futex call on each side) once per feature.
                    if batchDone { shared.finished.signal() }
                }
                shared.exited.signal()
            }
            t.stackSize = 16 << 20
            t.start()
        }
    }

    /// The oldest assistance offer, else the next input and its place in the queue; nil once the team stopped. A
    /// worker takes offers and inputs while there are any and waits only when there are none: a signal per input
    /// woke a worker per input when it was faster than the reader (a futex wake and wait per place of geonames, a
    /// third of its system time). A signal that finds nothing (another worker took it) only makes it look again.
    private static func take(_ shared: Shared, assistance: WorkerAssistance<State>?) -> Taken? {
        while true {
            if let offer = assistance?.next() { return .offer(offer) }
            let taken: Taken? = shared.queue.withLock { q in
                guard q.next < q.end, let input = q.inputs[q.next - q.base] else { return nil }
                q.inputs[q.next - q.base] = nil
                q.next += 1
                return .input(place: q.next - 1, input)
            }
            if let taken { return taken }
            if shared.stopped.load(ordering: .acquiring) { return nil }
            shared.available.wait()
        }
    }

    /// Processes a batch; returns one output per input, in input order. No other batch may be in flight.
    package func process(_ inputs: [Input]) -> [Output] {
        precondition(inlinePending.isEmpty && inFlight == 0, "WorkerTeam.process with batches in flight")
        submit(inputs)
        return collect() ?? []
    }

    /// Starts a batch on the workers and returns at once (with one thread, the batch waits for `collect`). Batches
    /// are collected in the order they were submitted.
    func submit(_ inputs: [Input]) {
        guard threads > 1 else {
            inlinePending.append(inputs)
            return
        }
        inFlight += 1
        shared.queue.withLock { q in
            q.batches.append(Batch(start: q.end, count: inputs.count, remaining: inputs.count))
            q.inputs.append(contentsOf: inputs.lazy.map { Optional($0) })
            q.outputs.append(contentsOf: repeatElement(nil, count: inputs.count))
            q.end += inputs.count
        }
        for _ in 0..<min(inputs.count, threads) { shared.available.signal() }
    }

    /// True when the oldest batch in flight is finished (`collect` would not wait); false with one thread, whose
    /// batches run in `collect`.
    var oldestIsDone: Bool {
        guard threads > 1, inFlight > 0 else { return false }
        return shared.queue.withLock { $0.batches.first?.remaining == 0 }
    }

    /// Waits for the oldest batch in flight; its outputs in input order, or nil when none is in flight.
    func collect() -> [Output]? {
        guard threads > 1 else {
            guard !inlinePending.isEmpty else { return nil }
            let inputs = inlinePending.removeFirst()
            var state = inlineState ?? makeState()
            defer { inlineState = state }
            return inputs.map { input in work(&state, input) }
        }
        guard inFlight > 0 else { return nil }
        inFlight -= 1
        while true {
            let outputs: [Output]? = shared.queue.withLock { q in
                guard let oldest = q.batches.first, oldest.remaining == 0 else { return nil }
                let outputs = q.outputs[0..<oldest.count].map { $0! }
                q.outputs.removeFirst(oldest.count)
                q.inputs.removeFirst(oldest.count)
                q.base += oldest.count
                q.batches.removeFirst()
                return outputs
            }
            if let outputs { return outputs }
            shared.finished.wait()
        }
    }

    /// Waits for every batch in flight and drops their outputs (an input that failed half-way).
    func discardInFlight() {
        inlinePending.removeAll()
        while collect() != nil {}
    }

    /// Stops the worker threads (their states are released on their own threads).
    package func shutdown() {
        guard threads > 1, !shared.stopped.load(ordering: .acquiring) else { return }
        discardInFlight()
        shared.stopped.store(true, ordering: .releasing)
        for _ in 0..<threads { shared.available.signal() }
        for _ in 0..<threads { shared.exited.wait() }
    }

    deinit { shutdown() }
}
