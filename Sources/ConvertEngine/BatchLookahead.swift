import KartpackCore

/// One batch of an input set as read: its features (nil at the end of the set) or what reading it threw, what
/// reading it reported (held, and reported when the batch's results are added, so the log's order does not depend
/// on how far ahead reading ran), and the set's records read so far.
struct ReadBatch: Sendable {
    var jobs: Result<[FeatureJob]?, any Error>
    var diagnostics: [Diagnostic]
    var recordsRead: Int

    /// True at the end of the set or when reading failed: nothing is read after it.
    var isLast: Bool {
        if case .success(.some) = jobs { return false }
        return true
    }

    /// Reads the next batch of up to `size` features of `layer`, holding what the read reports.
    static func read(_ layer: OpenedSet, size: Int, diagnostics: DiagnosticSink) -> ReadBatch {
        let (jobs, held) = diagnostics.holding { Result { try layer.nextBatch(size: size) } }
        return ReadBatch(jobs: jobs, diagnostics: held, recordsRead: layer.reader.readerStats.recordsRead)
    }

    /// What comes after the last batch: no features.
    static let end = ReadBatch(jobs: .success(nil), diagnostics: [], recordsRead: 0)

    /// `layer`'s batches (`read`) read on a thread of their own, a batch ahead of the feature phase's thread, up to
    /// and including the last (issue 34: with few cheap features per record, points, that thread was the
    /// bottleneck when it read each batch and then added the one before). While it runs nothing else touches the
    /// set's reader or its ids and counts; the caller stops it (`ReadAhead.stop`) before it finishes or rejects the
    /// set.
    static func readAhead(
        _ layer: OpenedSet, size: Int, diagnostics: DiagnosticSink
    ) -> ReadAhead<ReadBatch, Never> {
        var done = false
        return ReadAhead { () -> ReadBatch? in
            guard !done else { return nil }
            let batch = read(layer, size: size, diagnostics: diagnostics)
            done = batch.isLast
            return batch
        }
    }
}

/// The batches of one input set between reading and adding (`FeaturePhase`): each batch read is handed to the
/// workers (`WorkerTeam`) before the one before it is added.
///
/// At least two batches are in flight, as before; with more than one thread, while the oldest batch is not
/// finished — one worker on a feature of half a million vertices, the other idle — more are read and handed out,
/// up to `maxBatches` batches and `maxVertices` input vertices in flight, so the other workers go on
/// with the rest of the file. Results are still added in file order, and a batch's read diagnostics and read
/// error come with it, so neither the package nor the log depends on the thread count or on timing.
struct BatchLookahead {
    typealias Team = WorkerTeam<FeatureChain, FeatureJob, PieceReuse.Outcome>

    /// A batch ready to add: its features, their results, the records read after it (its read diagnostics went to
    /// `next`'s `report`).
    struct Taken {
        var jobs: [FeatureJob]
        var results: [PieceReuse.Outcome]
        var recordsRead: Int
    }

    static let maxBatches = 64
    static let maxVertices = 1 << 20

    private let read: () -> ReadBatch
    /// Read and (unless last) submitted, oldest first, with their input vertices.
    private var flight: [(batch: ReadBatch, vertices: Int)] = []
    private var vertices = 0
    private var ended = false

    init(read: @escaping () -> ReadBatch) { self.read = read }

    /// The oldest batch with its results, after reading and submitting what the workers can take meanwhile; nil
    /// at the end of the set. Its read diagnostics go to `report` first; a read's error is thrown in its place, once
    /// every batch before it was taken.
    mutating func next(team: Team, report: (Diagnostic) -> Void) throws -> Taken? {
        fill(team)
        guard !flight.isEmpty else { return nil }
        let (batch, v) = flight.removeFirst()
        vertices -= v
        for d in batch.diagnostics { report(d) }
        guard let jobs = try batch.jobs.get() else { return nil }
        return Taken(jobs: jobs, results: team.collect() ?? [], recordsRead: batch.recordsRead)
    }

    /// Reads and submits batches while there is room (see the type).
    private mutating func fill(_ team: Team) {
        while !ended {
            let room =
                flight.count < 2
                || (team.threads > 1 && flight.count < Self.maxBatches && vertices < Self.maxVertices
                    && !team.oldestIsDone)
            guard room else { return }
            let batch = read()
            var v = 0
            if case .success(let jobs?) = batch.jobs {
                v = jobs.reduce(0) { $0 + $1.feature.geometry.pointCount }
                team.submit(jobs)
            }
            ended = batch.isLast
            flight.append((batch, v))
            vertices += v
        }
    }
}
