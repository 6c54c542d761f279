internal import CDeflate
import Synchronization

/// libdeflate compressors kept for reuse, per level: allocating one per call cost a fresh mmap of its hash tables
/// (about 0.5 MiB at level 6, then above the process's 256 KiB mmap threshold), which the first writes then faulted in
/// page by page — a sixth of all page faults of a conversion went to the tiles' gzip. A compressor keeps no state
/// from one call to the next, so the output is the same bytes; each is used by one call at a time (taken from the
/// pool, given back after), and at most `kept` idle ones per level are held, for the life of the process.
enum CompressorPool {
    private struct Idle: @unchecked Sendable {
        var byLevel: [Int32: [OpaquePointer]] = [:]
    }

    private static let idle = Mutex(Idle())
    /// Idle compressors kept per level: about one per thread that compresses at once.
    static let kept = 8

    /// Runs `body` with a compressor for `level` (0...12), taken from the pool or made; nil when libdeflate could
    /// not allocate one.
    static func with<T>(level: Int32, _ body: (OpaquePointer) -> T) -> T? {
        let taken = idle.withLock { $0.byLevel[level]?.popLast() }
        guard let compressor = taken ?? libdeflate_alloc_compressor(level) else { return nil }
        let result = body(compressor)
        let keep = idle.withLock { pool -> Bool in
            guard pool.byLevel[level, default: []].count < kept else { return false }
            pool.byLevel[level, default: []].append(compressor)
            return true
        }
        if !keep { libdeflate_free_compressor(compressor) }
        return result
    }
}
