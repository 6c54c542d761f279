import Foundation
import KartpackCore
import Shapefile
import ConvertEngine

/// The outcome of a staged conversion: what was converted, whether it was published, and why (not).
package struct StagedConversionResult: Sendable {
    /// The conversion's report (`output` is the target, `published` the decision); for a build refused before
    /// converting it holds only the rejected inputs.
    package var report: ConvertReport
    /// True when the package was moved into place.
    package var published: Bool
    /// Layers missing from the package (published only under `.skip`) or that made the build fail.
    package var missingLayers: [MissingLayer]
    /// Every rejection and guard result, errors first in input order.
    package var findings: [PublishFinding]
    /// 0, or 65 when an input was rejected or the build was refused.
    package var exitCode: ExitCode
}

/// Runs a conversion the complete-or-nothing way: the package is built into a staging file next to the output,
/// then published only when every input was read (or the policy is `.skip`, which lists the missing layers in
/// the metadata) and every record-count guard holds. Otherwise nothing is published, the previous package stays
/// byte-identical and the result says which input or guard failed and why.
///
/// The policy lives here, outside the converter: it decides from `InputProbe` (before converting), the
/// conversion's report (rejected inputs and per-layer counts) and the previous package's metadata.
package struct StagedConversion {
    /// The conversion; `output` is where the package is published, `force` whether it may replace one.
    package var options: ConvertOptions
    package var policy: InputErrorPolicy
    /// Per-layer guards (pipelines); empty for `convert` and `import`.
    package var expectations: [LayerExpectation]
    /// How the inputs are named in messages, the report and the metadata.
    package var names: FileDisplayNames
    /// The package `maxShrink` compares with, when it is not the output (a shard of `run`: the published package,
    /// not its part file).
    package var previousPackage: String?

    /// Creates a staged conversion. Without `names`, files are shown as the inputs give them (`convert`'s command
    /// line: the sidecars of `data/roads.shp` are `data/roads.dbf`, …).
    package init(
        options: ConvertOptions, policy: InputErrorPolicy, expectations: [LayerExpectation] = [],
        names: FileDisplayNames? = nil
    ) {
        self.options = options
        self.policy = policy
        self.expectations = expectations
        self.names = names ?? Self.namesAsGiven(options.inputs)
    }

    /// Every file of the inputs' Shapefile sets shown by the path the input gives (so a bare file name in a
    /// message becomes `data/roads.dbf`).
    package static func namesAsGiven(_ inputs: [ConvertInput]) -> FileDisplayNames {
        var names = FileDisplayNames()
        for input in inputs {
            let sets = (try? input.inputSets()) ?? []
            for set in sets {
                for path in set.files {
                    names.add(path: path, shownAs: path)
                }
            }
        }
        return names
    }

    /// Probes, converts, checks and publishes (or not). Throws for errors that end any run (bad output, I/O,
    /// interruption, every input rejected: `PipelineError.nothingToWrite` with the report, paths shown as named).
    package func run(
        diagnostics: DiagnosticSink, progress: ProgressReporter?, isCancelled: @escaping @Sendable () -> Bool
    ) throws -> StagedConversionResult {
        let target = options.output
        try OutputTarget.check(target, force: options.force)
        diagnostics.setFileNames(names)
        let previous = PackageSummary.read(path: previousPackage ?? target)

        // The probe is the run's one opening of its inputs: the converter reads the readers it opened.
        let opened = ProbedSets()
        let predicted = try InputProbe.rejections(options, opening: opened, diagnostics: diagnostics)
        var missing = predicted.map(missingLayer)
        if policy == .fail, !predicted.isEmpty {
            // Nothing will be published: say why at once instead of converting the other inputs first.
            for r in predicted {
                // As the converter reports it: the message names the file (`FileDisplayNames` moves it to `file`).
                diagnostics.report(Diagnostic(.error, code: .fileRejected, r.message))
            }
            let findings = PublishCheck.rejections(missing, policy: .fail)
            let report = refusedReport(predicted, warnings: diagnostics.counts)
            return StagedConversionResult(
                report: report, published: false, missingLayers: missing, findings: findings, exitCode: .dataError)
        }

        let staged = try StagedPackage(
            target: target, staleSidecarSuffixes: options.format.sidecarSuffixes)
        defer { staged.discard() }
        var o = options
        o.output = staged.path
        o.force = true
        // The converter names the package after its output file: keep the target's name.
        if o.name == nil { o.name = ((target as NSString).lastPathComponent as NSString).deletingPathExtension }
        // The package lists the inputs the converter rejected, the ones found while reading records too: one build.
        let names = self.names
        o.missingLayersText = { inputs in
            let listed = Self.rejectedInputs(inputs, names: names)
            return listed.isEmpty ? nil : MissingLayer.metadataText(listed)
        }
        let report: ConvertReport
        do {
            report = try Converter(
                options: o, diagnostics: diagnostics, progress: progress, opened: opened, isCancelled: isCancelled
            ).run()
        } catch PipelineError.nothingToWrite(let reasons, let failed) {
            throw PipelineError.nothingToWrite(
                reasons: reasons.map(names.rewrite), report: shown(failed, target: target, published: false))
        }
        missing = Self.rejectedInputs(report.inputs, names: names)

        var findings = PublishCheck.rejections(missing, policy: policy)
        var written: [String: Int] = [:]
        for i in report.inputs where i.error == nil { written[i.layer, default: 0] += i.written }
        findings += PublishCheck.guards(
            expectations, written: written, rejected: Set(missing.map(\.layer)), previous: previous)
        findings.sort { ($0.severity == .error ? 0 : 1) < ($1.severity == .error ? 0 : 1) }
        if isCancelled() { throw PipelineError.interrupted(signal: 0) }

        let refuse = findings.contains { $0.severity == .error }
        if !refuse { try staged.publish(overwrite: options.force) }
        let anyRejected = !missing.isEmpty
        var shownReport = shown(report, target: target, published: !refuse)
        let exit: ExitCode = refuse || anyRejected ? .dataError : (ExitCode(rawValue: report.exitCode) ?? .success)
        shownReport.exitCode = exit.rawValue
        return StagedConversionResult(
            report: shownReport, published: !refuse, missingLayers: missing, findings: findings, exitCode: exit)
    }

    private func missingLayer(_ r: InputProbe.Rejection) -> MissingLayer {
        MissingLayer(layer: r.layer, file: names.name(r.path), code: r.code, reason: names.rewrite(r.message))
    }

    /// The inputs the converter rejected, as missing layers (files as the user named them).
    static func rejectedInputs(_ inputs: [ConvertReport.Input], names: FileDisplayNames) -> [MissingLayer] {
        inputs.compactMap { i in
            guard let error = i.error else { return nil }
            return MissingLayer(
                layer: i.layer, file: names.name(i.path), code: i.errorCode ?? .fileRejected,
                reason: names.rewrite(error))
        }
    }

    /// The report with the target as output, input paths and errors as the user named them.
    private func shown(_ report: ConvertReport, target: String, published: Bool) -> ConvertReport {
        var r = report
        r.output = target
        r.published = published
        for k in r.inputs.indices {
            r.inputs[k].path = names.name(r.inputs[k].path)
            r.inputs[k].error = r.inputs[k].error.map(names.rewrite)
        }
        return r
    }

    /// The report of a build refused before converting: the rejected inputs, their records counted as
    /// `file_rejected` (the other inputs were not read).
    private func refusedReport(
        _ rejections: [InputProbe.Rejection], warnings: [(code: ReasonCode, count: Int)]
    ) -> ConvertReport {
        let inputs = rejections.map { r in
            ReadPhase.rejected(
                path: names.name(r.path), layer: r.layer, records: (r.records, r.recordsSource),
                error: names.rewrite(r.message), code: r.code)
        }
        var rejected: [ReasonCode: Int] = [:]
        for i in inputs { rejected.add(i.rejected) }
        return ConvertReport(
            kartpack: Kartpack.version, output: options.output, format: options.format.rawValue, inputs: inputs,
            featuresRead: inputs.reduce(0) { $0 + $1.records }, featuresWritten: 0, rejected: rejected, repaired: [:],
            zooms: [], tiles: 0, tileContents: 0, bytes: 0, seconds: 0, timings: [:],
            warnings: Dictionary(warnings.map { ($0.code, $0.count) }, uniquingKeysWith: +),
            exitCode: ExitCode.dataError.rawValue, published: false)
    }
}
