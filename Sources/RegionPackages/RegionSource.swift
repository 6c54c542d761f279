import Foundation
import KartpackCore
import Styling
import ConvertEngine

/// One feature of a read-once source after stages 1–3 of the feature chain: its geometry in Web Mercator, the
/// repairs so far, the extent of its antimeridian copies (what the region index narrows by), and whether stage 3
/// had to make it valid (such a feature is routed by its extent: `RegionRouting`).
package struct ProjectedFeature: Sendable {
    package var job: FeatureJob
    package var repairs: Set<ReasonCode>
    package var bounds: Bounds
    package var madeValid = false
}

/// One opened input of a read-once source: the read phase's layer (its report so far) and every feature that
/// passed its filter, projected, in record order. Features a clipped run would reject before its clip stage are
/// only counted (`failures`), with their diagnostics reported once.
package final class PreReadLayer: @unchecked Sendable {
    // Read-only once the read is done; shared by the region builds (OpenedSet.finish only reads).
    package let layer: OpenedSet
    package let features: [ProjectedFeature]
    package let failures: [ReasonCode: Int]

    package init(layer: OpenedSet, features: [ProjectedFeature], failures: [ReasonCode: Int]) {
        self.layer = layer
        self.features = features
        self.failures = failures
    }
}

/// The sources of a region package, read and reprojected once: every input in command-line order, either
/// rejected (its report) or opened (`PreReadLayer`), plus the style's ancestor sets. Region builds take their
/// features from here instead of reading the files again.
package struct RegionSource: Sendable {
    package enum Entry: Sendable {
        case rejected(ConvertReport.Input)
        case layer(PreReadLayer)
    }

    package var entries: [Entry]
    /// The ancestor sets of descendant selectors (no clip: each region brings its own).
    package var regions: Regions

    /// The opened layers, in order.
    package var layers: [PreReadLayer] {
        entries.compactMap { if case .layer(let l) = $0 { l } else { nil } }
    }

    /// Reads every input of `options` (whose `clip` is ignored) through the read phase and stages 1–3 of the
    /// feature chain on `options.threads` workers. With `recordBoxes` (a package shard: `RegionShardBoxes`), the
    /// records it leaves are not read.
    package static func read(
        options: ConvertOptions, diagnostics: DiagnosticSink, progress: ProgressReporter?,
        isCancelled: @escaping @Sendable () -> Bool, recordBoxes: RecordBoxFilter? = nil
    ) throws -> RegionSource {
        var unclipped = options
        unclipped.clip = nil
        let classifier = options.style.map(StyleClassifier.init(sheet:))
        let regions = try Regions(options: unclipped, classifier: classifier, diagnostics: diagnostics)
        var settings = ReadSettings(options: unclipped)
        settings.recordBoxes = recordBoxes
        let read = ReadPhase(settings: settings, diagnostics: diagnostics, classifier: classifier, regions: regions)
        let parameters = TilingParameters(options: options)
        let team = WorkerTeam<FeatureChain, FeatureJob, ProjectResult>(
            threads: options.threads, makeState: { FeatureChain(parameters: parameters) },
            work: { chain, job in ProjectResult(chain.project(job)) })
        defer { team.shutdown() }
        var opened: [PreReadLayer] = []
        var sets = read.sets()
        while let layer = try sets.next() {
            do {
                var features: [ProjectedFeature] = []
                var failures: [ReasonCode: Int] = [:]
                let total = layer.reader.readerStats.recordsInFile
                while let batch = try layer.nextBatch(size: FeaturePhase.batchSize) {
                    if isCancelled() { throw PipelineError.interrupted(signal: 0) }
                    for (job, r) in zip(batch, team.process(batch)) {
                        switch r.outcome {
                        case .success(let (g, repairs, madeValid)):
                            var j = job
                            j.feature.geometry = g
                            features.append(
                                ProjectedFeature(job: j, repairs: repairs, bounds: r.bounds, madeValid: madeValid))
                        case .failure(let issue):
                            failures[issue.code, default: 0] += 1
                            diagnostics.report(
                                Diagnostic(
                                    .warning, code: issue.code, issue.message, file: layer.fileName,
                                    record: job.feature.provenance.record))
                        }
                    }
                    progress?.update("reading \(layer.name)", done: layer.reader.readerStats.recordsRead, total: total)
                }
                opened.append(PreReadLayer(layer: layer, features: features, failures: failures))
                sets.finish(layer.finish())
            } catch {
                // A set that fails half-way is rejected (or the run ends: `OpenedSets.reject`).
                try sets.reject(error)
            }
        }
        let reports = sets.reports
        progress?.finish()
        var entries: [Entry] = []
        var next = 0
        for r in reports {
            if r.error != nil {
                entries.append(.rejected(r))
            } else {
                entries.append(.layer(opened[next]))
                next += 1
            }
        }
        return RegionSource(entries: entries, regions: regions)
    }
}

/// A worker's answer for one feature of the read: projected (with the extent of its copies) or rejected.
package struct ProjectResult: Sendable {
    var outcome: Result<(Geometry, Set<ReasonCode>, madeValid: Bool), FeatureIssue>
    package var bounds: Bounds

    package init(_ outcome: Result<(Geometry, Set<ReasonCode>, madeValid: Bool), FeatureIssue>) {
        self.outcome = outcome
        var b = Bounds.empty
        if case .success(let (g, _, _)) = outcome {
            if let gb = g.bounds { b.include(gb) }
            for part in Regions.unwrapped(g) { if let pb = part.bounds { b.include(pb) } }
        }
        bounds = b
    }
}
