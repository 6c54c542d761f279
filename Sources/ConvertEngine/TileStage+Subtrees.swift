import Foundation
import GeometryAlgorithms
import GeometryOps
import KartpackCore
import Synchronization

extension TileStage {
    /// What a descent of the tile pyramid made of one feature (`descend`).
    struct Descent: Sendable {
        let family: GeometryFamily
        /// The top zoom: the deepest tiles cut.
        let top: Int
        var pieces: [TilePiece] = []
        /// Zooms where a tile's cut left nothing.
        var collapsed = Set<Int>()
        /// Some tile of the top zoom has a piece.
        var producedAtMax = false
        var repairs = Set<ReasonCode>()

        init(family: GeometryFamily, top: Int) {
            self.family = family
            self.top = top
        }

        /// Adds what a subtree's descent made.
        mutating func add(_ other: Descent) {
            pieces += other.pieces
            collapsed.formUnion(other.collapsed)
            producedAtMax = producedAtMax || other.producedAtMax
            repairs.formUnion(other.repairs)
        }
    }

    /// Cuts the subtrees `subtrees` (the children of one tile) into `made`: offered to the other workers, and taken
    /// by this one too until none is left, then waited for. Each subtree's descent is the one `descend` would have
    /// made in line (pieces are sorted by tile afterwards, repairs and collapsed zooms are sets), so the feature's
    /// pieces do not depend on who cut what; an error is the first subtree's in tile order, as in line.
    func fork(_ subtrees: [Subtree], into made: inout Descent) throws(GeometryError) {
        guard let offer = offerSubtrees else { preconditionFailure("TileStage.fork without workers to offer to") }
        let group = SubtreeGroup(subtrees, family: made.family, top: made.top, board: board)
        offer(group)
        while let (i, subtree) = group.claim(byHelper: false) {
            group.finish(i, cut(subtree, of: group), byHelper: false)
        }
        // Waiting for the helpers' subtrees, this worker cuts what other forks offer (a helper whose subtree is
        // still large forks it again while someone waits: `SubtreeBoard.someoneWaits`).
        if let board {
            board.wait(for: group) { other in help(other) }
        }
        for result in group.results() {
            switch result {
            case .success(let d): made.add(d)
            case .failure(let e): throw e
            }
        }
    }

    /// Cuts subtrees of `group` (offered by another worker's `fork`) until none is left to take.
    package func help(_ group: SubtreeGroup) {
        defer { engine.releaseScratch() }
        while let (i, subtree) = group.claim(byHelper: true) {
            group.finish(i, cut(subtree, of: group), byHelper: true)
        }
    }

    private func cut(_ subtree: Subtree, of group: SubtreeGroup) -> Result<Descent, GeometryError> {
        var made = Descent(family: group.family, top: group.top)
        do throws(GeometryError) {
            let parent = Cut(polygons: subtree.cut, boxes: subtree.boxes)
            try descend([(subtree.tile, parent, subtree.cutBounds)], into: &made)
            return .success(made)
        } catch {
            return .failure(error)
        }
    }
}

/// One tile below a giant polygon's cut, to be cut with everything below it (`TileStage.fork`): Swift values
/// only, so any worker can take it with its own GEOS engine.
package struct Subtree: Sendable {
    var tile: TileCoordinate
    /// The parent tile's cut (polygons in Web Mercator metres) and its polygons' boxes.
    var cut: Geometry
    var boxes: [Bounds]
    var cutBounds: Bounds
}

/// The subtrees of one fork, taken one at a time by the forking worker and by helpers, and their results.
package final class SubtreeGroup: Sendable {
    let family: GeometryFamily
    let top: Int
    private struct State {
        var subtrees: [Subtree]
        var next = 0
        var results: [Result<TileStage.Descent, GeometryError>?]
        /// Subtrees taken by helpers, and finished by them.
        var helped = 0
        var helpedFinished = 0
    }
    private let state: Mutex<State>
    /// Signalled once per subtree a helper finished.
    private let helperFinished = DispatchSemaphore(value: 0)
    /// Where the team's forks are posted (nil: the fork waits for its helpers without cutting for others).
    private let board: SubtreeBoard?

    init(_ subtrees: [Subtree], family: GeometryFamily, top: Int, board: SubtreeBoard? = nil) {
        self.family = family
        self.top = top
        self.board = board
        state = Mutex(State(subtrees: subtrees, results: Array(repeating: nil, count: subtrees.count)))
    }

    /// Whether a subtree is left to take.
    var isOpen: Bool { state.withLock { $0.next < $0.subtrees.count } }

    /// Whether every subtree was taken and those helpers took are finished.
    var isDone: Bool { state.withLock { $0.next == $0.subtrees.count && $0.helpedFinished == $0.helped } }

    /// The next subtree not taken yet, and its place.
    func claim(byHelper: Bool) -> (Int, Subtree)? {
        state.withLock { s in
            guard s.next < s.subtrees.count else { return nil }
            s.next += 1
            if byHelper { s.helped += 1 }
            return (s.next - 1, s.subtrees[s.next - 1])
        }
    }

    func finish(_ i: Int, _ result: Result<TileStage.Descent, GeometryError>, byHelper: Bool) {
        state.withLock {
            $0.results[i] = result
            if byHelper { $0.helpedFinished += 1 }
        }
        if byHelper {
            helperFinished.signal()
            board?.changed()
        }
    }

    /// Every subtree's result in order, once all are taken (the forking worker's claims came back empty) and the
    /// helpers' are finished; the subtrees' geometry is let go.
    func results() -> [Result<TileStage.Descent, GeometryError>] {
        let helped = state.withLock { $0.helped }
        for _ in 0..<helped { helperFinished.wait() }
        return state.withLock { s in
            s.subtrees = []
            return s.results.map { $0! }
        }
    }
}

/// The forks of one team's workers (`TileStage.fork`), open to any of them: a worker that waits for the helpers of
/// its own fork cuts subtrees of the others meanwhile, and says it waits, so that a helper whose subtree is still
/// large forks it again (at a sixteenth of the fork size) instead of cutting it alone while a core idles. Who cuts
/// what does not change the pieces (`fork`).
package final class SubtreeBoard: Sendable {
    private let open = Mutex<[SubtreeGroup]>([])
    private let waiting = Atomic<Int>(0)
    /// Bumped, under `condition`, when a fork is posted or a helper finishes a subtree.
    private let condition = NSCondition()
    nonisolated(unsafe) private var version = 0

    package init() {}

    /// Whether a worker is waiting for its fork's helpers.
    var someoneWaits: Bool { waiting.load(ordering: .relaxed) > 0 }

    /// Opens `group` to the waiting workers.
    func post(_ group: SubtreeGroup) {
        open.withLock { $0.append(group) }
        changed()
    }

    /// Wakes the waiting workers to look again.
    func changed() {
        condition.lock()
        version &+= 1
        condition.broadcast()
        condition.unlock()
    }

    /// The oldest posted fork with a subtree left to take (those without are let go).
    private func takeOpen() -> SubtreeGroup? {
        open.withLock { groups in
            groups.removeAll { !$0.isOpen }
            return groups.first
        }
    }

    /// Returns once `group`'s subtrees are all finished, running `help` on other open forks meanwhile.
    func wait(for group: SubtreeGroup, help: (SubtreeGroup) -> Void) {
        waiting.wrappingAdd(1, ordering: .relaxed)
        defer { waiting.wrappingSubtract(1, ordering: .relaxed) }
        while true {
            condition.lock()
            let seen = version
            condition.unlock()
            if group.isDone { return }
            if let other = takeOpen() {
                help(other)
                continue
            }
            condition.lock()
            while version == seen { condition.wait() }
            condition.unlock()
        }
    }
}
