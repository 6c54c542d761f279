import Foundation
import Synchronization

/// Long-lived worker threads that each own a private, non-Sendable state (a GEOS context, PROJ transformers)
/// for their whole life, and process batches of inputs with results returned in input order.
///
/// The state is created on the worker's own thread and never leaves it, so C handles are never shared. With
/// one thread the work runs inline on the caller's thread. Results do not depend on the thread count: outputs are
/// stored by input index. `submit` returns at once, so the caller can read the next batch while the workers
/// process this one (a queue of one batch in flight); `collect` waits for it.
package final class WorkerTeam<State, Input: Sendable, Output: Sendable> {
    private final class Shared: Sendable {
        let inputs = Mutex<[Input]>([])
        let outputs = Mutex<[Output?]>([])
        let next = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let start: [DispatchSemaphore]
        let done = DispatchSemaphore(value: 0)
        init(threads: Int) { start = (0..<threads).map { _ in DispatchSemaphore(value: 0) } }
    }

    private let shared: Shared
    private let threads: Int
    private var inlineState: State?
    private let makeState: @Sendable () -> State
    private let work: @Sendable (inout State, Input) -> Output

    /// Starts `threads` workers. `makeState` runs once on each worker thread; `work` runs for each input.
    package init(
        threads: Int, makeState: @escaping @Sendable () -> State,
        work: @escaping @Sendable (inout State, Input) -> Output
    ) {
        self.threads = max(1, threads)
        self.makeState = makeState
        self.work = work
        shared = Shared(threads: self.threads)
        guard self.threads > 1 else { return }
        for w in 0..<self.threads {
            let shared = shared
            let t = Thread {
                var state = makeState()
                while true {
                    shared.start[w].wait()
                    if shared.stop.load(ordering: .acquiring) { break }
                    let count = shared.inputs.withLock { $0.count }
                    while true {
                        let i = shared.next.wrappingAdd(1, ordering: .relaxed).oldValue
                        if i >= count { break }
                        let input = shared.inputs.withLock { $0[i] }
                        let out = work(&state, input)
                        shared.outputs.withLock { $0[i] = out }
                    }
                    shared.done.signal()
                }
                shared.done.signal()
            }
            t.stackSize = 16 << 20
            t.start()
        }
    }

    private var pending: [Input]?

    /// Processes a batch; returns one output per input, in input order.
    package func process(_ inputs: [Input]) -> [Output] {
        submit(inputs)
        return collect() ?? []
    }

    /// Starts a batch on the workers and returns at once (with one thread, the batch waits for `collect`). A
    /// batch still in flight is collected first and its outputs dropped: call `collect` before the next `submit`.
    func submit(_ inputs: [Input]) {
        if pending != nil { _ = collect() }
        pending = inputs
        guard threads > 1 else { return }
        shared.inputs.withLock { $0 = inputs }
        shared.outputs.withLock { $0 = Array(repeating: nil, count: inputs.count) }
        shared.next.store(0, ordering: .releasing)
        for s in shared.start { s.signal() }
    }

    /// Waits for the batch in flight; its outputs in input order, or nil when none was submitted.
    func collect() -> [Output]? {
        guard let inputs = pending else { return nil }
        pending = nil
        if threads == 1 {
            var state = inlineState ?? makeState()
            defer { inlineState = state }
            return inputs.map { input in work(&state, input) }
        }
        for _ in 0..<threads { shared.done.wait() }
        return shared.outputs.withLock { outs in outs.compactMap { $0 } }
    }

    /// Stops the worker threads (their states are released on their own threads).
    package func shutdown() {
        guard threads > 1, !shared.stop.load(ordering: .acquiring) else { return }
        if pending != nil { _ = collect() }
        shared.stop.store(true, ordering: .releasing)
        for s in shared.start { s.signal() }
        for _ in 0..<threads { shared.done.wait() }
    }

    deinit { shutdown() }
}
