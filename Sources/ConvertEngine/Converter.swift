import Foundation
import KartpackCore
import Styling
import TileArchive

/// Runs `kartpack convert`: Shapefiles → reprojected, simplified, clipped MVT tiles → PMTiles or MBTiles, as a
/// chain of phases with typed hand-offs:
///
/// `PublishPhase` (the archive format, chosen first: it declares tile order and compression) ·
/// `ReadPhase` (Shapefile sets → streamed batches) → `FeaturePhase` (the per-worker `FeatureChain`) →
/// `TiledLayers` → `OrderPhase` → `TileRuns` → `EncodePhase` → `EncodedTiles` → `PublishPhase.publish`.
///
/// Output bytes do not depend on the thread count.
package final class Converter {
    /// The options; with `maxZoomAuto`, `run` sets the chosen `maxZoom` (and `maxZoomChoice`) before anything else.
    private(set) var options: ConvertOptions
    package let diagnostics: DiagnosticSink
    package let progress: ProgressReporter?
    package let classifier: StyleClassifier?
    /// Checked between batches and tiles; a true value stops the run (nothing is published).
    package let isCancelled: @Sendable () -> Bool
    /// The input sets the probe opened for this run (`InputProbe`), read instead of opened again.
    package let opened: ProbedSets?

    /// Creates a converter; `opened` holds what the input probe opened of `options.inputs`.
    package init(
        options: ConvertOptions, diagnostics: DiagnosticSink, progress: ProgressReporter? = nil,
        opened: ProbedSets? = nil, isCancelled: @escaping @Sendable () -> Bool = { false }
    ) {
        self.options = options
        self.diagnostics = diagnostics
        self.progress = progress
        self.opened = opened
        self.isCancelled = isCancelled
        classifier = options.style.map(StyleClassifier.init(sheet:))
    }

    /// Converts; throws when nothing can be published. Rejected inputs and records are in the report.
    package func run() throws -> ConvertReport {
        try LayerRegistry.check(options)
        return try run {
            let regions = try Regions(options: options, classifier: classifier, diagnostics: diagnostics)
            let read = ReadPhase(
                settings: ReadSettings(options: options), diagnostics: diagnostics, classifier: classifier,
                regions: regions, opened: opened)
            return try FeaturePhase(
                settings: FeatureSettings(options: options), diagnostics: diagnostics, progress: progress,
                isCancelled: isCancelled
            ).run(read)
        }
    }

    /// Converts the `TiledLayers` that `features` makes (the read and feature phases, or a region package's
    /// routed features: `RegionBuild`) through the order, encode and publish phases.
    package func run(features: () throws -> TiledLayers) throws -> ConvertReport {
        var clock = StageClock()
        try OutputTarget.check(options.output, force: options.force)
        try chooseMaxZoom()
        try ScratchPlace(options: options).checkBeforeRun(
            shpBytes: ScratchPlace.shpBytes(options.inputs), zooms: options.maxZoom - options.minZoom + 1,
            budget: options.memoryBudget)
        let publishing = PublishSettings(options: options)
        let publisher = PublishPhase(settings: publishing)
        var tiled = try features()
        try check(tiled, clock: clock)
        let settings = EncodeSettings(
            options: options, outputs: tiled.outputs, compression: publisher.tileCompression)
        if tiled.lazy != nil, let store = options.pieceReuse {
            // A night's pieces left in the store: read back where tonight's changes touch (or all of them when
            // nothing is copied, or something spans tiles).
            settings.reuse?.begin(settings)
            // (Identity classes only choose whom a thinned feature coalesces into.)
            let copying =
                settings.reuse?.isActive == true && settings.maxPoints.allSatisfy { $0 == nil }
                && !settings.coalesce.contains(true)
            settings.reuse?.lazy = try tiled.settleLazyPieces(copying: copying, store: store)
        }
        clock.lap("features")

        let ordered = try OrderPhase(order: publisher.tileOrder, threads: options.threads).run(&tiled.pieces)
        defer { ordered.close() }
        clock.lap("sort")
        // Tonight's piece store is complete: sealed beside the encode phase (with more than one thread).
        if options.threads > 1 { options.pieceReuse?.sealInBackground() }
        try checkCancelled()
        let zooms = options.minZoom...options.maxZoom
        let encoder = EncodePhase(settings: settings)
        let encoded = try encoder.run(
            ordered, records: tiled.outputs.map(\.records), zooms: zooms,
            into: EncodedTiles(spill: SpillSettings(options: options)),
            progress: progress)
        defer { encoded.close() }
        var sort = ConvertReport.Sort(
            budgetBytes: options.memoryBudget, spilledRuns: ordered.spilledRuns, scratchBytes: Int(ordered.scratchBytes)
        )
        ordered.close()
        // The pieces are freed while the package is written; the conversion ends when both are done.
        let release = options.threads > 1 ? ordered.releaseInBackground() : nil
        defer { release?.wait() }
        progress?.finish()
        try checkCancelled()
        clock.lap("encode")

        let metadata = PackageMetadataBuilder(settings: publishing).make(tiled, stats: encoded.stats)
        let summary: ArchiveSummary
        if let shard = options.shard {
            // One shard of a plan: its range of the tiles, as a part file for `kartpack merge`.
            summary = try publisher.publishPart(
                encoded, zooms: zooms, metadata: metadata, target: shard, format: options.format,
                path: options.output, notes: tiled.shardNotes, checkCancelled: checkCancelled)
        } else {
            summary = try publisher.publish(
                encoded, zooms: zooms, metadata: metadata, progress: progress, threads: options.threads,
                checkCancelled: checkCancelled)
        }
        clock.lap("write")
        sort.tileScratchBytes = Int(encoded.scratchBytes)
        sort.recordScratchBytes = Int(tiled.recordSpill?.scratchBytes ?? 0)
        encoded.close()
        var report = ConvertReport(
            run: tiled, stats: encoded.stats, summary: summary, options: options, clock: clock, diagnostics: diagnostics
        )
        report.sort = sort
        report.maxZoomChosen = options.maxZoomChoice
        report.peakRSSBytes = PeakMemory.residentBytes()
        return report
    }

    /// `--max-zoom auto`: the pre-pass over the inputs (`MaxZoomGuess`) picks the max zoom, said on the log as a
    /// note (`max_zoom_chosen`) and kept for the report. Once per converter, however often it runs.
    private func chooseMaxZoom() throws {
        guard options.maxZoomAuto, options.maxZoomChoice == nil else { return }
        let choice = try MaxZoomGuess(options: options).choose()
        options.maxZoom = choice.zoom
        options.maxZoomChoice = choice
        diagnostics.report(
            Diagnostic(.note, code: .maxZoomChosen, "max zoom \(choice.zoom) chosen: \(choice.reason)"))
    }

    /// Per output layer: whether thinned pieces merge into neighbours (`--coalesce` for all, else the sheet's).
    static func coalescingLayers(_ options: ConvertOptions, outputs: [OutputLayer]) -> [Bool] {
        outputs.map { options.thinning.coalesce || $0.coalesce }
    }

    /// The `max-points` limit of each output layer: a limit naming the layer, else the stylesheet's, else the
    /// general one for point layers (label layers, `X_labels` next to a polygon layer `X`, follow their polygons and
    /// get none).
    package static func maxPoints(_ limits: [(layer: String?, limit: Int)], outputs: [OutputLayer]) -> [Int?] {
        guard !limits.isEmpty || outputs.contains(where: { $0.maxPoints != nil }) else { return [] }
        let polygonLayers = Set(outputs.filter { $0.family == .polygon }.map(\.name))
        return outputs.map { o in
            if let named = limits.last(where: { $0.layer.map { $0.utf8.elementsEqual(o.name.utf8) } ?? false }) {
                return named.limit
            }
            if let fromStyle = o.maxPoints { return fromStyle }
            let isLabels = o.name.hasSuffix("_labels") && polygonLayers.contains(String(o.name.dropLast(7)))
            guard o.family == .point, !isLabels else { return nil }
            return limits.last { $0.layer == nil }?.limit
        }
    }

    /// Refuses to go on when nothing can be written, and checks the reconciliation identity of every input.
    private func check(_ tiled: TiledLayers, clock: StageClock) throws {
        let failed = tiled.inputs.filter { $0.error != nil }
        guard failed.count < tiled.inputs.count else {
            throw PipelineError.nothingToWrite(
                reasons: ["every input was rejected"] + failed.compactMap(\.error),
                report: ConvertReport(
                    run: tiled, stats: [:], summary: nil, options: options, clock: clock, diagnostics: diagnostics))
        }
        for r in tiled.inputs where r.error == nil {
            let accounted = r.written + r.rejected.values.reduce(0, +) + (r.outsideShard ?? 0)
            guard accounted == r.records else {
                throw PipelineError.reconciliationFailed(
                    detail:
                        "\(r.path): \(r.records) records read, \(r.written) written + \(accounted - r.written) rejected"
                )
            }
        }
        // A shard without the metadata may hold no feature (its tiles are empty); the first shard checks the build.
        guard !tiled.written.isEmpty || options.shard.map({ !$0.holdsMetadata }) == true else {
            throw PipelineError.nothingToWrite(
                reasons: ["no feature was written (see the rejected counts)"],
                report: ConvertReport(
                    run: tiled, stats: [:], summary: nil, options: options, clock: clock, diagnostics: diagnostics))
        }
    }

    package func checkCancelled() throws {
        if isCancelled() { throw PipelineError.interrupted(signal: 0) }
    }
}

extension ConvertReport {
    /// The report of a run (`summary` nil when nothing was published).
    package init(
        run tiled: TiledLayers, stats: [Int: ZoomStats], summary: ArchiveSummary?, options: ConvertOptions,
        clock: StageClock, diagnostics: DiagnosticSink
    ) {
        let inputs = tiled.inputs
        var rejected: [ReasonCode: Int] = [:]
        var repaired: [ReasonCode: Int] = [:]
        for i in inputs {
            rejected.add(i.rejected)
            repaired.add(i.repaired)
        }
        let coalescing = Converter.coalescingLayers(options, outputs: tiled.outputs).contains(true)
        let zooms = stats.keys.sorted().compactMap { z -> ConvertReport.Zoom? in
            guard let s = stats[z] else { return nil }
            var zoom = ConvertReport.Zoom(
                zoom: z, tiles: s.tiles, bytes: s.bytes, largestTileBytes: s.largest, features: s.features,
                dropped: s.dropped, keptFraction: s.keptFraction, tilesOverLimit: s.overLimit)
            if options.sharedBorders { zoom.sharedBorderFallbacks = s.sharedBorderFallbacks }
            if coalescing { zoom.coalesced = s.coalesced }
            if s.protectedDropped > 0 { zoom.protectedDropped = s.protectedDropped }
            var small: [String: ConvertReport.SmallFeatures] = [:]
            for (l, c) in s.smallFeatures where Int(l) < tiled.outputs.count && c.reduced + c.keptAsPixel > 0 {
                small[tiled.outputs[Int(l)].name] = .init(reduced: c.reduced, keptAsPixel: c.keptAsPixel)
            }
            if !small.isEmpty { zoom.smallFeatures = small }
            return zoom
        }
        for z in zooms where z.tilesOverLimit > 0 {
            diagnostics.report(
                Diagnostic(
                    .warning, code: .tileOverLimit,
                    "\(z.tilesOverLimit) tiles at zoom \(z.zoom) exceed the tile limits; written whole, since nothing "
                        + "is dropped at a feature's highest zoom"
                ))
        }
        for z in zooms {
            guard let n = z.protectedDropped else { continue }
            diagnostics.report(
                Diagnostic(
                    .warning, code: .protectedThinned,
                    "\(n) protected features (thinning: never) left out at zoom \(z.zoom): the protected features of "
                        + "a tile alone exceed the tile limits, so every unprotected feature of the zoom went first"))
        }
        var warnings: [ReasonCode: Int] = [:]
        for (code, n) in diagnostics.counts { warnings[code] = n }
        let anyRejected = inputs.contains { $0.error != nil }
        let exit: ExitCode = !anyRejected && summary != nil ? .success : .dataError
        self.init(
            kartpack: Kartpack.version, output: options.output, format: options.format.rawValue, inputs: inputs,
            featuresRead: inputs.reduce(0) { $0 + $1.records }, featuresWritten: inputs.reduce(0) { $0 + $1.written },
            rejected: rejected, repaired: repaired, zooms: zooms, tiles: summary?.addressedTiles ?? 0,
            tileContents: summary?.tileContents ?? 0, bytes: Int(summary?.fileBytes ?? 0), seconds: clock.elapsed,
            timings: clock.timings, warnings: warnings, exitCode: exit.rawValue, published: summary != nil)
    }
}
