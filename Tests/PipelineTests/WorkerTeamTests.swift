import Foundation
import Synchronization
import Testing

@testable import ConvertEngine

/// `WorkerTeam` with several batches in flight: outputs come back per batch in submission order and input order,
/// whatever the thread count and however long one input takes; `oldestIsDone` and `discardInFlight` say and drop
/// what is in flight.
@Suite struct WorkerTeamTests {
    /// Squares its input; input 0 sleeps first (a long feature holding one worker).
    static func team(threads: Int) -> WorkerTeam<Int, Int, Int> {
        WorkerTeam(threads: threads, makeState: { 0 }) { calls, x in
            calls += 1
            if x == 0 { Thread.sleep(forTimeInterval: 0.05) }
            return x * x
        }
    }

    @Test(arguments: [1, 2, 3])
    func batchesComeBackInTheOrderTheyWereSubmitted(threads: Int) {
        let team = Self.team(threads: threads)
        let batches = [[0, 1, 2], [3], [], [4, 5, 6, 7, 8], Array(9..<300)]
        for b in batches { team.submit(b) }
        for b in batches { #expect(team.collect() == b.map { $0 * $0 }) }
        #expect(team.collect() == nil)
        #expect(team.process([11, 12]) == [121, 144])
        team.shutdown()
    }

    /// Input 0 waits until the last input of the second batch has run: with one batch at a time it would wait in
    /// vain (and give -1 after 10 s).
    @Test func laterBatchesRunWhileTheOldestWaitsOnALongInput() {
        let lastRan = DispatchSemaphore(value: 0)
        let team = WorkerTeam<Int, Int, Int>(threads: 2, makeState: { 0 }) { _, x in
            if x == 0 { return lastRan.wait(timeout: .now() + 10) == .success ? 0 : -1 }
            if x == 49 { lastRan.signal() }
            return x * x
        }
        team.submit([0])
        team.submit(Array(1..<50))
        #expect(team.collect() == [0])
        // Input 49 has signalled; its output is stored a moment later.
        for _ in 0..<1000 where !team.oldestIsDone { Thread.sleep(forTimeInterval: 0.01) }
        #expect(team.oldestIsDone)
        #expect(team.collect() == (1..<50).map { $0 * $0 })
        #expect(!team.oldestIsDone)
        team.shutdown()
    }

    @Test(arguments: [1, 2])
    func inFlightBatchesCanBeDropped(threads: Int) {
        let team = Self.team(threads: threads)
        team.submit([0, 1])
        team.submit([2])
        team.discardInFlight()
        #expect(team.collect() == nil)
        team.submit([3])
        #expect(team.collect() == [9])
        team.shutdown()
    }

    /// An offer made while the other worker is idle runs there, with that worker's state, while the offering
    /// worker waits for it (with one batch in flight nothing else would run).
    @Test func anIdleWorkerRunsAnOfferWithItsOwnState() {
        let assistance = WorkerAssistance<Int>()
        let ids = Atomic<Int>(0)
        let ranOn = Mutex<[Int]>([])
        let team = WorkerTeam<Int, Int, Int>(
            threads: 2, assistance: assistance, makeState: { ids.add(1, ordering: .relaxed).newValue }
        ) { me, x in
            guard x == 7 else { return x }
            let done = DispatchSemaphore(value: 0)
            assistance.offer { helper in
                ranOn.withLock { $0.append(helper) }
                done.signal()
            }
            return done.wait(timeout: .now() + 10) == .success ? me : -1
        }
        let out = team.process([7])
        #expect(out.count == 1 && out[0] != -1)
        #expect(ranOn.withLock { $0 }.count == 1)
        #expect(ranOn.withLock { $0 }.first != out.first)
        // Offers and inputs share the workers' wake-ups: the team still runs batches and stops cleanly.
        #expect(team.process([1, 2, 3]) == [1, 2, 3])
        team.shutdown()
    }
}
