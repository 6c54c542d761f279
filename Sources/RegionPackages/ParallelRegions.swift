import Foundation
import Synchronization

/// Runs `body` for every index in `0..<count` on up to `threads` threads (16 MiB stacks, as the feature
/// workers have), each index once; results come back by index, so their order does not depend on the
/// thread count. Every thread makes its own C contexts inside `body`.
func parallelRegions<T: Sendable>(
    count: Int, threads: Int, _ body: @escaping @Sendable (Int) -> T
) -> [T] {
    let results = Mutex<[T?]>(Array(repeating: nil, count: count))
    let next = Atomic<Int>(0)
    let workers = max(1, min(threads, count))
    if workers == 1 {
        return (0..<count).map(body)
    }
    let done = DispatchSemaphore(value: 0)
    for _ in 0..<workers {
        let t = Thread {
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if i >= count { break }
                let r = body(i)
                results.withLock { $0[i] = r }
            }
            done.signal()
        }
        t.stackSize = 16 << 20
        t.start()
    }
    for _ in 0..<workers { done.wait() }
    return results.withLock { $0.map { $0! } }
}
