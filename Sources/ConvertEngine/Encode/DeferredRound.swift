import Foundation

/// A thinned zoom's last round, deferred so that it runs beside the next zoom's cut-off search (issue 34).
///
/// A zoom over a limit is encoded twice: a first round finds the tiles over a limit and the cut-off at which they
/// fit (`ThinPass.fittingCutoff`: a few trial encodes of each such tile, one after another), the last round encodes
/// the zoom at that cut-off. The zoom below starts from the same cut-off, so its first round does not wait for the
/// last round above it; its cut-off search, on the few heavy tiles of a low zoom, keeps one core busy. So when a
/// zoom's batches are all held (`HeldBatches`), its last round is handed to the zoom below, which starts it on its
/// own thread while it searches its own cut-off (`start`), and waits for it before it adds tiles of its own
/// (`finish`): the zooms' tiles come in the same order and with the same bytes as one after another.
///
/// The round that was meant to be the last may still find a tile over a limit (a thinner tile is not always
/// smaller): then `finish` says so, and the zoom is encoded again from where it started, before the zoom below.
final class DeferredRound: @unchecked Sendable {
    /// What the round made: each batch's tiles (in the order they are added), and its tally.
    struct Made {
        var batches: [[EncodedTile]]
        var tally: ZoomTally
        /// With reuse, per batch what tonight's tile index records of it (`TileReuse.noteLastRound`); else empty.
        var notes: [LastRoundNote] = []
    }

    let zoom: Int
    private var work: (() throws -> Made)?
    private var result: Result<Made, any Error>?
    private var thread: Thread?
    private var joined = false
    private let done = DispatchSemaphore(value: 0)

    init(zoom: Int, work: @escaping () throws -> Made) {
        self.zoom = zoom
        self.work = work
    }

    /// Starts the round on its own thread (once; a round started never stops early, `wait` joins it).
    func start() {
        guard let work, thread == nil else { return }
        let box = UncheckedBox(work)
        let t = Thread { [self] in
            let r = Result { try box.value() }
            self.result = r
            self.done.signal()
        }
        t.stackSize = 16 << 20
        thread = t
        t.start()
    }

    /// The round's tiles and tally: run here when it was not started, else waited for.
    func wait() throws -> Made {
        join()
        if result == nil, let work { result = Result { try work() } }
        work = nil
        guard let result else { throw PipelineError.tileEncoding(tile: "z\(zoom)", reason: "deferred round lost") }
        return try result.get()
    }

    /// Waits for a started round and drops its outcome (an error elsewhere ends the encode phase).
    func abandon() {
        join()
        work = nil
    }

    /// Waits for the round's thread, once.
    private func join() {
        guard thread != nil, !joined else { return }
        done.wait()
        joined = true
    }

    /// The round asked to be the last found a tile over a limit: the zoom is encoded again, in order.
    struct NotLast: Error {}
}

/// Moves a non-`Sendable` value to the deferred round's thread; the value is used there alone until `wait`.
private struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
