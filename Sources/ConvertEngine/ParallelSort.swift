import Dispatch

/// Sorts of large arrays of small keys on two threads: the halves sorted side by side, then merged from both ends
/// at once (one thread takes the smaller half of the output from the front, the other the rest from the back).
/// The keys must never compare equal (callers end each key with its element's index), so the result is the one
/// order a sort on one thread gives, whatever the thread count.
enum ParallelSort {
    /// Elements below which the sorts run on one thread.
    static let minimum = 1 << 15

    /// Sorts `keys` ascending, on two threads when `threads` > 1 and there are at least `minimum` keys.
    static func sort<Key: Comparable & Sendable>(_ keys: inout [Key], threads: Int) {
        guard threads > 1, keys.count >= minimum else {
            keys.sort()
            return
        }
        keys = sorted(&keys, threads: threads) { $0 }
    }

    /// `transform` of each key, in the keys' ascending order (`keys` is left empty): what a sort of the keys and
    /// then a `map` give, without the sorted keys ever in memory beside what they are mapped to.
    static func sorted<Key: Comparable & Sendable, Mapped: Sendable>(
        _ keys: inout [Key], threads: Int, _ transform: @escaping @Sendable (Key) -> Mapped
    ) -> [Mapped] {
        let n = keys.count
        guard threads > 1, n >= minimum else {
            keys.sort()
            defer { keys = [] }
            return keys.map(transform)
        }
        let mid = n / 2
        keys.withUnsafeMutableBufferPointer { all in
            // Each thread sorts its own half of the buffer, which outlives both.
            let halves = UnsafeHalves(lower: .init(rebasing: all[..<mid]), upper: .init(rebasing: all[mid...]))
            DispatchQueue.concurrentPerform(iterations: 2) { half in
                var part = half == 0 ? halves.lower : halves.upper
                part.sort()
            }
        }
        let halves = keys
        keys = []
        return [Mapped](unsafeUninitializedCapacity: n) { out, count in
            halves.withUnsafeBufferPointer { source in
                let ends = MergeEnds(source: source, out: out, mid: mid, transform: transform)
                DispatchQueue.concurrentPerform(iterations: 2) { side in
                    if side == 0 { ends.mergeFront(upTo: n / 2) } else { ends.mergeBack(downTo: n / 2) }
                }
            }
            count = n
        }
    }

    /// Runs `body` over `0..<count` in contiguous parts, on two threads when `threads` > 1 and `count` is at least
    /// `minimum` (each part's range given once; `body` must touch only its own range's elements).
    static func forEachPart(count: Int, threads: Int, _ body: @Sendable (Range<Int>) -> Void) {
        guard threads > 1, count >= minimum else { return body(0..<count) }
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            body(part == 0 ? 0..<count / 2 : count / 2..<count)
        }
    }
}

/// The two halves of a buffer sorted side by side, one per thread.
struct UnsafeHalves<T>: @unchecked Sendable {
    var lower: UnsafeMutableBufferPointer<T>
    var upper: UnsafeMutableBufferPointer<T>
}

/// Two sorted runs (`source[..<mid]`, `source[mid...]`) merged into `out` (each key as `transform` maps it) from
/// both ends: the front merge writes `out[..<split]`, the back merge `out[split...]`; both can run at once (no key
/// compares equal to another).
private struct MergeEnds<Key: Comparable, Mapped>: @unchecked Sendable {
    let source: UnsafeBufferPointer<Key>
    let out: UnsafeMutableBufferPointer<Mapped>
    let mid: Int
    let transform: (Key) -> Mapped

    func mergeFront(upTo split: Int) {
        var (i, j) = (0, mid)
        let n = source.count
        for p in 0..<split {
            if j == n || (i < mid && source[i] < source[j]) {
                (out.baseAddress! + p).initialize(to: transform(source[i]))
                i += 1
            } else {
                (out.baseAddress! + p).initialize(to: transform(source[j]))
                j += 1
            }
        }
    }

    func mergeBack(downTo split: Int) {
        var (i, j) = (mid - 1, source.count - 1)
        var p = source.count - 1
        while p >= split {
            if j < mid || (i >= 0 && source[j] < source[i]) {
                (out.baseAddress! + p).initialize(to: transform(source[i]))
                i -= 1
            } else {
                (out.baseAddress! + p).initialize(to: transform(source[j]))
                j -= 1
            }
            p -= 1
        }
    }
}
