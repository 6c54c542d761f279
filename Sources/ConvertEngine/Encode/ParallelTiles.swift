import KartpackCore
import Dispatch
import Synchronization

/// Runs per-tile work of the encode passes on up to `threads` threads, results in index order (so the bytes do not
/// depend on the thread count). A signal stops the work within one tile (the caller reports the interruption).
package struct ParallelTiles: Sendable {
    package var threads: Int

    /// `body(i)` for i in 0..<n; results in index order.
    package func map<T: Sendable>(
        _ n: Int, _ body: @Sendable @escaping (Int) throws(PipelineError) -> T
    ) throws(PipelineError) -> [T] {
        let results = Mutex<[Result<T, PipelineError>?]>(Array(repeating: nil, count: n))
        let next = Atomic<Int>(0)
        let workers = max(1, min(threads, n))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < n else { return }
                let r = Result { () throws(PipelineError) -> T in
                    if CancellationFlag.process.isCancelled { throw PipelineError.interrupted(signal: 0) }
                    return try body(i)
                }
                results.withLock { $0[i] = r }
            }
        }
        return try results.withLock { all throws(PipelineError) in
            try all.map { result throws(PipelineError) -> T in
                guard let result else { throw PipelineError.tileEncoding(tile: "?", reason: "not encoded") }
                return try result.get()
            }
        }
    }
}
