import Foundation

/// Items made one after the other by `make` on a thread of its own, one item ahead of the thread that takes them
/// (`next`): an input set's next batch of features is read while the feature phase adds the one before
/// (`ReadBatch.readAhead`), and the next batch of a zoom's merged sort runs (`ZoomStream`) is read and decoded while
/// the encode phase prepares and encodes the one before (issue 34: with sort runs, the merge was a serial stretch of
/// the encode phase between two parallel passes, up to a fifth of its thread's time at 1M stands).
///
/// The items come in the order `make` makes them, so nothing depends on timing; `make`'s error comes in the place of
/// the item it failed to make, and nothing is made after it (nor after the end, nil). While the thread runs nothing
/// else may touch what `make` uses. The thread holds the read-ahead until it ends: the caller takes the items to
/// the end or an error, or calls `stop` (which waits for it), on every path. The next item is made only once the
/// caller took the one before: at most one item beside the one the caller holds (one batch more in memory).
final class ReadAhead<Item, Failure: Error>: @unchecked Sendable {
    private let condition = NSCondition()
    /// The item made and not yet taken (guarded by `condition`, as are the flags below).
    private var slot: Result<Item?, Failure>?
    private var stopping = false
    private var ended = false
    /// The caller took the end or an error: nothing more is made.
    private var finished = false
    /// Used by the thread alone.
    private let make: () throws(Failure) -> Item?

    /// Starts making the first item.
    init(_ make: @escaping () throws(Failure) -> Item?) {
        self.make = make
        let thread = Thread { [self] in run() }
        thread.stackSize = 16 << 20
        thread.start()
    }

    /// Makes an item whenever the slot is empty (the caller took the one before), until the end, an error or
    /// `stop`.
    private func run() {
        while true {
            condition.lock()
            while slot != nil && !stopping { condition.wait() }
            let stop = stopping
            condition.unlock()
            if stop { return end() }
            let made: Result<Item?, Failure>
            do throws(Failure) { made = .success(try make()) } catch { made = .failure(error) }
            condition.lock()
            let last: Bool
            if case .success(.some) = made { last = stopping } else { last = true }
            if !stopping { slot = made }
            condition.broadcast()
            condition.unlock()
            if last { return end() }
        }
    }

    /// The thread is done: `waitForEnd` returns from now on.
    private func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next item (nil at the end), or `make`'s error; the one after it is made meanwhile.
    func next() throws(Failure) -> Item? {
        guard !finished else { return nil }
        condition.lock()
        while slot == nil { condition.wait() }
        let taken = slot!
        slot = nil
        condition.broadcast()
        condition.unlock()
        switch taken {
        case .success(let item?): return item
        case .success(nil):
            finished = true
            waitForEnd()
            return nil
        case .failure(let error):
            finished = true
            waitForEnd()
            throw error
        }
    }

    /// Ends the thread (after the item it is making) and waits for it; the items not taken are dropped.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
        waitForEnd()
    }

    private func waitForEnd() {
        condition.lock()
        while !ended { condition.wait() }
        condition.unlock()
    }
}
