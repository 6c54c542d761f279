import Foundation
import KartpackCore
import Nightly
import ConvertEngine
import Publishing
import TileArchive

extension PipelineRunner {
    /// The shard planner of a pipeline (`kartpack plan PIPELINE.json`): its options compiled as `run` compiles
    /// them, with the pipeline file, the stylesheet and its icons fingerprinted besides the inputs. `arguments` is
    /// the `run` command line the shards run. A pipeline with `"maxZoom": "auto"` is refused (the zoom is chosen
    /// when built, so the zooms cannot be split ahead).
    package static func shardPlanner(spec: PipelineSpec, arguments: [String]) throws -> ShardPlanner {
        let (compiled, problems) = compileIssues(spec)
        guard let options = compiled else { throw PipelineSpecError(file: spec.file, issues: problems) }
        let missing = spec.missingFiles()
        guard missing.isEmpty else { throw PipelineSpecError(file: spec.file, issues: missing, exitCode: .noInput) }
        guard !options.maxZoomAuto else {
            throw ShardError.damaged(
                path: spec.file, reason: "a sharded run needs a fixed tiles.maxZoom, not \"auto\" (set it, or --set)")
        }
        let files = [spec.file] + (spec.style.map { [$0] } ?? []) + (options.style?.referencedFiles ?? [])
        return ShardPlanner(options: options, arguments: arguments, otherFiles: files)
    }

    /// Builds one shard of a pipeline's plan (`kartpack run --plan PLAN.json --shard I/N -o PART`): the conversion
    /// `run` does — the same options, metadata (the first shard's part holds the package's, with the nightly
    /// fingerprint), input policy, report and exit codes — into the part file `part`, as a convert shard does
    /// (`ShardTarget`). The layer guards (`minFeatures`, `maxShrink` against the published package,
    /// `requireFeatures`) are checked by the first shard, whose counts are the whole build's; the other shards
    /// count only their tiles' features. No lock (the part is this shard's own), no up-to-date check, no tile
    /// reuse: a merge is a full build. The caller has checked the plan's fingerprint.
    package static func runShard(
        spec: PipelineSpec, shard: ShardTarget, format: ArchiveFormat, part: String, force: Bool,
        diagnostics: DiagnosticSink, progress: ProgressReporter?, isCancelled: @escaping @Sendable () -> Bool,
        threads: Int? = nil, allowPartial: Bool = false, memoryBudget: Int? = nil, scratch: String? = nil
    ) throws -> PipelineRunReport {
        var timer = StageClock()
        let (compiled, problems) = compileIssues(spec)
        guard var options = compiled else { throw PipelineSpecError(file: spec.file, issues: problems) }
        timer.lap("validate")
        // The nightly fingerprint goes into the package metadata, which only the first shard's part holds.
        let fingerprint = shard.holdsMetadata ? try spec.fingerprint() : nil
        timer.lap("fingerprint")
        if let fingerprint { options.extraMetadata = [(PackageSummary.fingerprintKey, fingerprint.hex)] }
        options.threads = threads ?? ProcessInfo.processInfo.activeProcessorCount
        options.memoryBudget = memoryBudget ?? spec.memoryBudget ?? MemoryBudget.defaultBytes
        options.scratchDirectory = scratch
        options.output = part
        options.format = format
        options.force = force
        // The package is named after the merged file, not the part.
        if options.name == nil { options.name = (shard.outputName as NSString).deletingPathExtension }
        options.shard = shard
        var staged = StagedConversion(
            options: options, policy: allowPartial ? .skip : spec.onInputError,
            expectations: shard.holdsMetadata ? spec.expectations : [], names: displayNames(spec))
        staged.previousPackage = spec.output.path
        let result = try staged.run(diagnostics: diagnostics, progress: progress, isCancelled: isCancelled)
        timer.lap("convert")
        return PipelineRunReport(
            kartpack: Kartpack.version, pipeline: spec.file, output: part, fingerprint: fingerprint?.hex ?? "",
            upToDate: false, dryRun: false, inputs: fingerprint?.inputs ?? [], conversion: result.report,
            published: result.published, missingLayers: result.missingLayers, findings: result.findings,
            incremental: nil, timings: timer.timings, exitCode: result.exitCode.rawValue)
    }
}
