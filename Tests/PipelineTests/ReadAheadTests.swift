import Foundation
import Synchronization
import Testing

@testable import ConvertEngine

/// `ReadAhead`: items made on a thread of their own come in order, an error in its place, and the thread ends
/// (taken to the end or an error, or stopped early).
@Suite struct ReadAheadTests {
    private struct Failed: Error, Equatable { var at: Int }

    /// Counts items made (on the reading thread) and whether one was made after the end or an error.
    private final class Source: @unchecked Sendable {
        let made = Atomic<Int>(0)
        let count: Int
        let failAt: Int?
        init(count: Int, failAt: Int? = nil) {
            self.count = count
            self.failAt = failAt
        }
        func next() throws(Failed) -> Int? {
            let i = made.add(1, ordering: .sequentiallyConsistent).newValue - 1
            if let failAt, i == failAt { throw Failed(at: i) }
            return i < count ? i * 3 : nil
        }
    }

    @Test(arguments: [0, 1, 2, 500])
    func itemsComeInTheOrderTheyAreMadeAndNothingIsMadeAfterTheEnd(count: Int) throws {
        let source = Source(count: count)
        let ahead = ReadAhead { () throws(Failed) in try source.next() }
        var taken: [Int] = []
        while let item = try ahead.next() { taken.append(item) }
        #expect(taken == (0..<count).map { $0 * 3 })
        // The end was made once, and asking again gives the end without making anything.
        #expect(try ahead.next() == nil)
        #expect(source.made.load(ordering: .sequentiallyConsistent) == count + 1)
    }

    @Test func anErrorComesInThePlaceOfItsItemAndEndsTheItems() throws {
        let source = Source(count: 100, failAt: 7)
        let ahead = ReadAhead { () throws(Failed) in try source.next() }
        var taken: [Int] = []
        #expect(throws: Failed(at: 7)) {
            while let item = try ahead.next() { taken.append(item) }
        }
        #expect(taken == (0..<7).map { $0 * 3 })
        #expect(source.made.load(ordering: .sequentiallyConsistent) == 8)
        // After the error: the end, without making anything.
        #expect(try ahead.next() == nil)
        #expect(source.made.load(ordering: .sequentiallyConsistent) == 8)
    }

    @Test func stoppingEarlyEndsTheThreadAfterAtMostOneItemMore() throws {
        let source = Source(count: 1_000_000)
        let ahead = ReadAhead { () throws(Failed) in try source.next() }
        #expect(try ahead.next() == 0)
        #expect(try ahead.next() == 3)
        ahead.stop()
        // Two taken, and at most the one made once the second was taken (none is made while one waits).
        let made = source.made.load(ordering: .sequentiallyConsistent)
        #expect(made >= 2 && made <= 3)
        ahead.stop()
    }
}
