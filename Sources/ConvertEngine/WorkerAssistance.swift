import Foundation
import Synchronization

/// Work that a worker busy with one long input offers to the idle workers of its `WorkerTeam`: each offer runs
/// once, on whichever worker takes it first, with that worker's own state (its GEOS engine: no C handle crosses
/// threads, only Swift values the offer captured).
///
/// A worker takes offers before new inputs, so help goes to the input that holds back the oldest batch (the
/// mainland of a coastline file: half a million vertices cut through every zoom, `TileStage`'s subtrees) before
/// the lookahead reads further. An offer must not wait on an input; it may make offers of its own.
package final class WorkerAssistance<State>: Sendable {
    /// One offer: runs with the state of the worker that took it.
    package typealias Offer = @Sendable (inout State) -> Void

    private let offers = Mutex<[Offer]>([])
    /// Signalled once per offer; the team's workers wait on it for inputs too (`WorkerTeam`).
    let wake = DispatchSemaphore(value: 0)

    package init() {}

    /// Queues `offer` for the next worker that looks for work, and wakes one.
    package func offer(_ offer: @escaping Offer) {
        offers.withLock { $0.append(offer) }
        wake.signal()
    }

    /// The oldest offer not taken yet.
    func next() -> Offer? {
        offers.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
