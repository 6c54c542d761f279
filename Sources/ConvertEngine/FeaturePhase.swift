import Foundation
import KartpackCore
import Styling
/// Phase 2 of `convert`: every feature of every opened layer through the `FeatureChain` on the worker threads,
/// its result added to the `TiledLayers` in input order (so output does not depend on the thread count).
///
/// Reading overlaps processing: while the workers cut one batch, the next is read and handed to them too, and a
/// batch's results are added while the workers are busy with the next (`BatchLookahead`: with more threads, more
/// batches go out while the oldest waits on one long feature). With more than one thread the
/// reading runs on a thread of its own (`ReadBatch.readAhead`), beside the adding.
///
/// Input: the `ReadPhase`'s layers. Output: `TiledLayers` (every feature's pieces, spooled past the memory budget,
/// and its record). Settings: `FeatureSettings` (the tiling, worker threads, the spill).
package struct FeaturePhase {
    /// Features handed to the workers at once.
    package static let batchSize = 256

    package let settings: FeatureSettings
    package let diagnostics: DiagnosticSink
    package let progress: ProgressReporter?
    package let isCancelled: @Sendable () -> Bool

    /// Reads, processes and collects every layer of `read`.
    package func run(_ read: ReadPhase) throws -> TiledLayers {
        let parameters = settings.tiling
        // With a piece store (`run`), unchanged features are read back instead of tiled.
        let pieces = settings.pieces
        pieces?.begin(parameters)
        // Idle workers help cut a giant polygon (a coastline's mainland) that holds back the oldest batch.
        let helpers = settings.threads - 1
        let assistance = helpers > 0 ? WorkerAssistance<FeatureChain>() : nil
        let board = helpers > 0 ? SubtreeBoard() : nil
        let team = WorkerTeam<FeatureChain, FeatureJob, PieceReuse.Outcome>(
            threads: settings.threads, assistance: assistance,
            makeState: { FeatureChain(parameters: parameters, assistance: assistance, helpers: helpers, board: board) },
            work: { chain, job in pieces?.process(job, chain: chain) ?? PieceReuse.Outcome(feature: chain.process(job))
            })
        defer { team.shutdown() }
        var tiled = TiledLayers(spill: settings.spill)
        if let pieces, pieces.readsLast, !pieces.lazyZooms.isEmpty {
            tiled.lazy = LazyPieces(
                zooms: pieces.lazyZooms, checking: pieces.checkingLazy,
                order: FeatureSummary.orders.firstIndex(of: settings.spill.tileOrder) ?? 0, parameters: parameters,
                withSizes: settings.thinningBySize)
        }
        tiled.number(settings.outputNames)
        tiled.shardNotes = settings.notes
        var sets = read.sets()
        while let layer = try sets.next() {
            let start = tiled.checkpoint()
            do {
                var intake = LayerIntake(layer: layer, diagnostics: diagnostics)
                let total = layer.reader.readerStats.recordsInFile
                // With more than one thread the batches are read on a thread of their own (`ReadBatch.readAhead`).
                let prefetch =
                    settings.threads > 1
                    ? ReadBatch.readAhead(layer, size: Self.batchSize, diagnostics: diagnostics) : nil
                defer { prefetch?.stop() }
                var lookahead = BatchLookahead {
                    if let prefetch { return prefetch.next() ?? ReadBatch.end }
                    return ReadBatch.read(layer, size: Self.batchSize, diagnostics: diagnostics)
                }
                while true {
                    if isCancelled() { throw PipelineError.interrupted(signal: 0) }
                    guard let taken = try lookahead.next(team: team, report: { diagnostics.report($0) }) else { break }
                    for (job, result) in zip(taken.jobs, taken.results) {
                        let storedAt = pieces?.record(result)
                        intake.add(
                            job, result.feature, to: &tiled, key: result.key, reuse: pieces, readBack: result.readBack,
                            storedAt: storedAt)
                        try tiled.spillIfOverBudget()
                    }
                    progress?.update("reading \(layer.name)", done: taken.recordsRead, total: total)
                }
                prefetch?.stop()
                tiled.idSchemes.append((layer.name, layer.ids.scheme))
                sets.finish(intake.finish())
            } catch {
                // A file that fails half-way leaves nothing in the package (nor its batches in flight).
                team.discardInFlight()
                tiled.rollback(to: start)
                try sets.reject(error)
            }
        }
        tiled.inputs = sets.reports
        if let pieces, pieces.tracksFeatures { tiled.settleFeatureDigests(pieces) }
        progress?.finish()
        return tiled
    }
}

/// Adds one layer's results to the `TiledLayers`: counts, diagnostics, feature records, pieces. The bookkeeping
/// of one input file, from its first result to its report.
package struct LayerIntake {
    package let layer: OpenedSet
    package let diagnostics: DiagnosticSink
    /// The layer's file name (`OpenedSet.fileName`), taken once: every diagnostic of every feature names it.
    private let file: String
    private var written = 0
    private var rejected: [ReasonCode: Int] = [:]
    private var repaired: [ReasonCode: Int] = [:]
    private var classes: [String: Int] = [:]
    /// Rejections after the clip stage of a clipped run (the package's metadata counts them).
    private var rejectedInside: [ReasonCode: Int] = [:]
    /// Features left to the other shards (`ShardFootprint`).
    private var outsideShard = 0
    /// The layer's ids are record numbers (taken once: the set's id assigner may be busy on a reader thread).
    private let recordNumberIDs: Bool

    /// True in a clipped run: the report then has `insideClip`.
    package let clipped: Bool

    /// `clipped` defaults to whether the layer's context has a clip region (a region build clips each job).
    package init(layer: OpenedSet, diagnostics: DiagnosticSink, clipped: Bool? = nil) {
        self.layer = layer
        self.diagnostics = diagnostics
        file = layer.fileName
        recordNumberIDs = layer.ids.scheme.kind == .recordNumber
        self.clipped = clipped ?? (layer.context.clip != nil)
    }

    /// Adds one feature's result; with its piece store `key` and `reuse` (`run`), with its digest and whether last
    /// night's package had it (`PieceReuse.featureDigest`, `claim`); `readBack`: what of its record was left in
    /// the store (`LazyPieces`); `storedAt`: its record's place in tonight's piece store (`PieceReuse.record`).
    package mutating func add(
        _ job: FeatureJob, _ result: TiledFeature, to tiled: inout TiledLayers, key: TileDigest? = nil,
        reuse: PieceReuse? = nil, readBack: ReadBack? = nil, storedAt: UInt32? = nil
    ) {
        let record = job.feature.provenance.record
        let tiling: TiledFeature.Tiling
        switch result {
        case .rejected(let issue) where issue.code == ShardFootprint.code:
            outsideShard += 1
            return
        case .rejected(let issue):
            rejected[issue.code, default: 0] += 1
            if issue.insideClip { rejectedInside[issue.code, default: 0] += 1 }
            diagnostics.report(Diagnostic(.warning, code: issue.code, issue.message, file: file, record: record))
            return
        case .tiled(let t):
            tiling = t
        }
        for w in tiling.warnings {
            diagnostics.report(Diagnostic(.warning, code: w.code, w.message, file: file, record: record))
        }
        let top = tiling.zooms.upperBound
        guard tiling.pieces.contains(where: { $0.tile.z == top }) || readBack?.holds(zoom: top, label: false) == true
        else {
            rejected[.collapsedAtMaxZoom, default: 0] += 1
            if clipped { rejectedInside[.collapsedAtMaxZoom, default: 0] += 1 }
            diagnostics.report(
                Diagnostic(
                    .warning, code: .collapsedAtMaxZoom, "geometry has nothing left at zoom \(top)", file: file,
                    record: record))
            return
        }
        written += 1
        // Counted per feature: one feature repaired in many tiles counts once per kind.
        for kind in tiling.repairs.sorted() {
            repaired[kind, default: 0] += 1
            diagnostics.report(Diagnostic(.note, code: kind, "geometry repaired (\(kind))", file: file, record: record))
        }
        tiled.dataBounds.include(tiling.bounds)
        for piece in tiling.pieces where piece.tile.z == top { tiled.longitudes.mark(tileX: piece.tile.x, zoom: top) }
        for tile in readBack?.tiles(zoom: top, label: false) ?? [] { tiled.longitudes.mark(tileX: tile.x, zoom: top) }

        let styled = tiling.styled
        var properties = job.feature.properties
        if let keep = styled?.keep { properties = ReadPhase.keeping(properties, keep) }
        let classes = styled?.classes ?? []
        let topClass = classes.last ?? nil
        if let c = topClass { self.classes[c, default: 0] += 1 }
        let id = job.id
        let out = tiled.output(named: styled?.layer ?? layer.name)
        let featureIndex = tiled.outputs[out].records.count
        if let n = styled?.maxPoints { tiled.outputs[out].maxPoints = max(n, tiled.outputs[out].maxPoints ?? n) }
        if styled?.coalesce == true { tiled.outputs[out].coalesce = true }
        // The stable key (`FeatureKey`): the id when the layer takes ids from a field, else the content.
        let fieldID = recordNumberIDs ? nil : id
        let rank = FeatureKey.rank(layer: tiled.outputs[out].name, id: fieldID, content: job.content)
        let base = tiling.zooms.lowerBound
        let flags = styled?.flags ?? []
        let fields = styled?.keep.map { ReadPhase.keeping(layer.fields, $0) } ?? layer.fields
        let stored = FeatureRecord(
            id: id, properties: properties, rank: rank, classes: classes.contains { $0 != nil } ? classes : [],
            flags: flags, classBaseZoom: base)
        tiled.outputs[out].records.append(stored)
        tiled.shardNotes?.add(
            input: ShardFeatureNotes.inputKey(name: layer.name, path: layer.set.path), record: record,
            repairs: tiling.repairs, collapsedAt: tiling.collapsedAt,
            layer: tiled.outputs[out].name, zooms: tiling.zooms, classes: classes)
        let tier = (layer.input.thinning ?? styled?.thinning ?? .auto).tier
        let identity = (layer.input.identity ?? styled?.identity).map {
            ThinningTraits.IdentityKey(names: $0, properties: job.feature.properties)
        }
        let known = reuse.flatMap { r in key.map { (reuse: r, key: $0, style: PieceReuse.styleDigest(styled)) } }
        // Its digest in layer `l` (as a label point: `label`), and whether last night's package had it.
        func digest(_ l: Int, label: Bool) -> (TileDigest?, Bool) {
            guard let known, known.reuse.tracksFeatures else { return (nil, false) }
            let d = PieceReuse.featureDigest(
                key: known.key, style: known.style, layer: tiled.outputs[l].name, label: label, record: stored)
            return (d, known.reuse.claim(d, layer: l))
        }
        let (d, same) = digest(out, label: false)
        tiled.outputs[out].traits.append(tier: tier, identity: identity, digest: d, unchanged: same, record: storedAt)
        tiled.outputs[out].note(
            family: job.feature.geometry.kind.family, fields: fields, classes: classes, base: base,
            collapsedAt: tiling.collapsedAt, flagKeys: layer.context.clientCascade?.flagKeys ?? [],
            zooms: tiling.zooms)
        let place = LazyPlace(layer: out, feature: featureIndex)
        var labelPlace: LazyPlace?
        var lazy = same
        if !tiling.labelPieces.isEmpty || readBack?.holds(label: true) == true {
            // The label point goes to the layer's `_labels` layer with the polygon's id, attributes and rank.
            let labels = tiled.output(named: tiled.outputs[out].name + "_labels")
            let labelIndex = tiled.outputs[labels].records.count
            tiled.outputs[labels].records.append(stored)
            // The label point is thinned with its polygon (it takes the polygon's place in the drop order).
            let (labelDigest, labelSame) = digest(labels, label: true)
            tiled.outputs[labels].traits.append(
                tier: tier, identity: nil, digest: labelDigest, unchanged: labelSame, record: storedAt)
            // Its classes count at the zooms it is labelled at (where the point is written).
            let labelled = styled?.labelled ?? []
            let labelClasses = classes.indices.map { i in i < labelled.count && labelled[i] ? classes[i] : nil }
            // The label layer's zooms are those the point is written at.
            let labelZooms = tiling.labelPieces.map { Int($0.tile.z) } + (readBack?.zooms(label: true) ?? [])
            tiled.outputs[labels].note(
                family: .point, fields: fields, classes: labelClasses, base: base, collapsedAt: [],
                flagKeys: tiled.outputs[out].flagKeys,
                zooms: (labelZooms.min() ?? base)...(labelZooms.max() ?? tiling.zooms.upperBound))
            labelPlace = LazyPlace(layer: labels, feature: labelIndex)
            lazy = lazy && labelSame
        }
        tiled.addPieces(
            tiling, place: place, labels: labelPlace, readBack: readBack, lazy: lazy && readBack != nil)
    }

    /// The layer's report.
    package func finish() -> ConvertReport.Input {
        var r = layer.finish()
        r.written = written
        r.rejected.add(rejected)
        r.repaired.add(repaired)
        r.classes = classes
        if outsideShard > 0 { r.outsideShard = (r.outsideShard ?? 0) + outsideShard }
        if clipped {
            r.insideClip = ConvertReport.InsideClip(
                records: written + rejectedInside.values.reduce(0, +), written: written, rejected: rejectedInside,
                repaired: repaired)
        }
        return r
    }
}

extension OutputLayer {
    /// Notes what one more feature brings to the layer's metadata: geometry family, fields (first-seen order),
    /// classes (at its top zoom and per zoom it is written at), flag fields, zoom range.
    package mutating func note(
        family: GeometryFamily, fields: [FieldDefinition], classes: [String?], base: Int, collapsedAt: [Int],
        flagKeys: [String], zooms: ClosedRange<Int>
    ) {
        for f in fields where !self.fields.contains(where: { $0.name == f.name }) { self.fields.append(f) }
        if self.family == nil { self.family = family }
        if let c = classes.last ?? nil { self.classes[c, default: 0] += 1 }
        if classes.contains(where: { $0 != nil }) { hasClass = true }
        for (i, c) in classes.enumerated() {
            guard let c, !collapsedAt.contains(base + i) else { continue }
            classesByZoom[base + i, default: [:]][c, default: 0] += 1
        }
        for k in flagKeys where !self.flagKeys.contains(k) { self.flagKeys.append(k) }
        self.zooms =
            self.zooms.map { min($0.lowerBound, zooms.lowerBound)...max($0.upperBound, zooms.upperBound) } ?? zooms
    }
}
