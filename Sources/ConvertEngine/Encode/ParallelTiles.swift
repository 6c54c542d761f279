import KartpackCore
import Dispatch
import Synchronization

/// Runs per-tile work of the encode passes on up to `threads` threads, results in index order (so the bytes do not
/// depend on the thread count). A signal stops the work within one tile (the caller reports the interruption).
package struct ParallelTiles: Sendable {
    package var threads: Int

    /// `body(i)` for i in 0..<n; results in index order. With `largestFirst`, the work starts with the largest
    /// `cost(i)` (ties in index order), so that a heavy tile late in the order does not run alone at the end.
    package func map<T: Sendable>(
        _ n: Int, largestFirst cost: ((Int) -> Int)? = nil, _ body: @Sendable @escaping (Int) throws(PipelineError) -> T
    ) throws(PipelineError) -> [T] {
        let results = Mutex<[Result<T, PipelineError>?]>(Array(repeating: nil, count: n))
        let next = Atomic<Int>(0)
        let workers = max(1, min(threads, n))
        let order: [Int]? = workers > 1 ? cost.map { c in (0..<n).sorted { (c($0), $1) > (c($1), $0) } } : nil
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let k = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard k < n else { return }
                let i = order?[k] ?? k
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
