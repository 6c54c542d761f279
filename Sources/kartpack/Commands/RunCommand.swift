import Foundation
import KartpackCore
import Nightly
import ConvertEngine
import PipelineFiles
import TileArchive

/// `kartpack run PIPELINE.json`: the nightly job.
struct RunCommand: Command {
    static let name = "run"
    static let summary = "build the package a pipeline file describes (skipped when nothing changed)"
    static let options: [OptionSpec] =
        [
            OptionSpec(
                name: "set", kind: .repeatable, help: "override a pipeline value, e.g. tiles.maxZoom=12",
                valueName: "KEY=VALUE"),
            OptionSpec(
                name: "dry-run", kind: .flag, help: "validate, fingerprint and say what would happen; build nothing"),
            OptionSpec(name: "force", kind: .flag, help: "rebuild even when the package is up to date"),
            OptionSpec(
                name: "full", kind: .flag,
                help: "encode every tile (rebuild even when up to date), not only those changed since the tile index"),
            OptionSpec(
                name: "allow-partial", kind: .flag,
                help: "publish the other layers when an input is rejected (as \"onInputError\": \"skip\")"),
            OptionSpec(name: "report", kind: .value, help: "write the run report as JSON", valueName: "FILE.json"),
            OptionSpec(
                name: "log-format", kind: .value,
                help: "text (default) or json: one JSON object per log line on stderr",
                valueName: "text|json"),
            OptionSpec(
                name: "threads", kind: .value, help: "worker threads (default: the number of cores)", valueName: "N"),
            OptionSpec(
                name: "memory-budget", kind: .value,
                help:
                    "memory for tile pieces and finished tiles before they go to scratch files on disk (default: the "
                    + "pipeline's memoryBudget, else 256M)",
                valueName: "SIZE"),
            OptionSpec(
                name: "scratch", kind: .value, help: "folder for those scratch files (default: the output's folder)",
                valueName: "DIR"),
            OptionSpec(name: "quiet", kind: .flag, help: "no progress line, warnings or summary"),
            OptionSpec(
                name: "output", kind: .value, help: "with --plan: the shard's part file", valueName: "PART",
                short: "o"),
        ]
        + ShardArguments.planOptions(
            "build one shard of a plan (`kartpack plan PIPELINE.json`): the pipeline and options come from the plan, "
                + "-o is the shard's part file for `kartpack merge`")
    static var help: String {
        helpText(
            usage:
                "kartpack run PIPELINE.json [--set KEY=VALUE ...] [--dry-run] [--force] [--full] [--report FILE.json] "
                + "[--log-format text|json]\n       kartpack run --plan PLAN.json --shard I/N -o PART [--threads N] "
                + "[--report FILE.json] [--force]",
            summary: """
                Validates the pipeline, takes a lock next to the output (a second run of the same pipeline exits 75 at
                once), and skips the build when the package already holds the fingerprint of these exact inputs,
                pipeline, stylesheet and Kartpack version. Otherwise it checks free disk space, builds into a temporary
                file and publishes it atomically; on any failure or SIGINT/SIGTERM the previous package is untouched
                (exit 130/143 for signals). A package is complete or not published: when any input is rejected, or a
                layer breaks its minFeatures/maxShrink/requireFeatures guard, nothing is published and the run exits
                65, the report and log saying which input or layer and why. With --allow-partial (or "onInputError":
                "skip") the other layers are published and the metadata key kartpack_missing_layers lists the
                missing ones (still exit 65). A build re-encodes only the tiles whose features changed since the last
                one and copies the others from the previous package, byte-identical to a full build, using the tile
                index it keeps next to the package (PACKAGE.tileindex); without a usable index, or with --full, every
                tile is encoded, and the report says why.
                """,
            options: options,
            footer: "The pipeline format is documented in Pipelines/README.md; exit codes in the README. Sharded runs "
                + "on a cluster: docs/cluster.md.")
    }

    let path: String
    let overrides: [String]
    let dryRun: Bool
    let force: Bool
    let full: Bool
    let reportPath: String?
    let json: Bool
    let threads: Int?
    let memoryBudget: Int?
    let scratch: String?
    let quiet: Bool
    let allowPartial: Bool
    /// `--plan`/`--shard`: this run builds one shard of a plan (the other fields are unused).
    var shardRequest: RunShardRequest?
    /// What a shard builds: the plan's target, the package's format and the part file (set by `RunShardRequest`).
    struct Shard {
        var target: ShardTarget
        var format: ArchiveFormat
        var part: String
    }
    var shard: Shard?

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        if p.value("plan") != nil || p.value("shard") != nil {
            shardRequest = try RunShardRequest(p, arguments: arguments)
        } else {
            guard p.value("output") == nil else {
                throw UsageError(message: "-o is a shard's part file (with --plan); the pipeline names the output")
            }
            guard p.positionals.count == 1 else { throw UsageError(message: "run needs exactly one PIPELINE.json") }
        }
        path = p.positionals.first ?? ""
        overrides = p.values("set")
        dryRun = p.flag("dry-run")
        force = p.flag("force")
        full = p.flag("full")
        reportPath = p.value("report")
        json = try p.choice("log-format", ["text", "json"], default: "text") == "json"
        threads = try p.int("threads", in: 1...256)
        memoryBudget = try PackageOptions.memoryBudget(p)
        scratch = p.value("scratch")
        quiet = p.flag("quiet")
        allowPartial = p.flag("allow-partial")
    }

    /// Writes `--report` for a run that ended by an error or a signal (nothing published; the cause as the one
    /// error finding) and returns `exit`. Every exit path of `run` leaves a report when one is asked for.
    private func failed(
        _ spec: PipelineSpec, code: ReasonCode, message: String, exit: ExitCode, conversion: ConvertReport? = nil
    ) -> ExitCode {
        guard let reportPath else { return exit }
        let report = PipelineRunReport.failure(
            spec, code: code, message: message, exitCode: exit, dryRun: dryRun, conversion: conversion)
        return PackageOptions.writeReport(report, to: reportPath) ? exit : .ioError
    }

    func run() throws -> ExitCode {
        if let shardRequest { return try shardRequest.run() }
        let formatter = JSONLogFormatter()
        func log(_ message: String, level: String = "info", code: ReasonCode? = nil, file: String? = nil) {
            if json {
                Console.errRaw(formatter.line(level: level, message: message, code: code, file: file) + "\n")
            } else if !quiet || level == "error" {
                Console.error(level == "info" ? message : "\(level): " + (file.map { "\($0): " } ?? "") + message)
            }
        }
        var spec: PipelineSpec
        do {
            spec = try PipelineSpec.load(path: path, overrides: overrides)
        } catch {
            for line in error.lines { log("\(path): \(line)", level: "error") }
            return error.exitCode
        }
        // Outputs must be regular files (or not exist yet) and none may be an input of the pipeline (exit 73/64).
        var inputs = RunGuard.shapefileInputs(spec.sources.map(\.path), role: "source")
        if let style = spec.style { inputs.append(OutputCollision.Role(style, as: "stylesheet")) }
        if let clip = spec.clip, case .file(let p, _) = clip.area {
            inputs += RunGuard.shapefileInputs([p], role: "clip file")
        }
        inputs.append(OutputCollision.Role(path, as: "pipeline file"))
        inputs.append(OutputCollision.Role(RunLock.lockPath(forOutput: spec.output.path), as: "output's lock file"))
        var outputs = [
            shard.map { OutputCollision.Role($0.part, as: "shard part") }
                ?? OutputCollision.Role(spec.output.path, as: "output package")
        ]
        if let reportPath { outputs.append(OutputCollision.Role(reportPath, as: "--report")) }
        do {
            try RunGuard.check(outputs: outputs, inputs: inputs)
        } catch let e as any KartpackError {
            log(e.description, level: "error")
            return e.exitCode
        }
        RunGuard.sweep(smallOutputs: reportPath.map { [$0] } ?? [])
        let signals = PackageOptions.signalTrap()
        defer { signals.uninstall() }
        let report: PipelineRunReport
        do {
            report = try DiagnosticTail.around(PackageOptions.sink(quiet: quiet, json: json), quiet: quiet, json: json)
            {
                sink in
                if let shard {
                    return try PipelineRunner.runShard(
                        spec: spec, shard: shard.target, format: shard.format, part: shard.part, force: force,
                        diagnostics: sink, progress: json ? nil : ProgressReporter.forStandardError(enabled: !quiet),
                        isCancelled: { signals.cancelled }, threads: threads, allowPartial: allowPartial,
                        memoryBudget: memoryBudget, scratch: scratch)
                }
                return try PipelineRunner.run(
                    spec: spec, force: force, dryRun: dryRun, diagnostics: sink,
                    progress: json ? nil : ProgressReporter.forStandardError(enabled: !quiet),
                    isCancelled: { signals.cancelled },
                    threads: threads, allowPartial: allowPartial, memoryBudget: memoryBudget, scratch: scratch,
                    full: full)
            }
        } catch  where signals.cancelled || PipelineError.isInterruption(error) {
            // Whatever the interrupted work threw on its way out, the signal is the reason.
            let message = "interrupted; the previous package is untouched"
            log(message, level: "error")
            return failed(spec, code: .interrupted, message: message, exit: signals.exitCode ?? .interrupted)
        } catch PipelineError.nothingToWrite(let reasons, let conversion) {
            let message = "nothing to write: " + reasons.joined(separator: "; ")
            log(message, level: "error")
            return failed(spec, code: .nothingToWrite, message: message, exit: .dataError, conversion: conversion)
        } catch let e as any KartpackError {
            log(e.description, level: "error")
            return failed(spec, code: .runFailed, message: e.description, exit: e.exitCode)
        }
        if let reportPath, !PackageOptions.writeReport(report, to: reportPath) { return .ioError }
        for f in report.findings {
            log(f.message, level: f.severity.rawValue, code: f.code, file: f.file)
        }
        if report.upToDate {
            log("\(spec.output.path) is up to date (fingerprint \(report.fingerprint.prefix(12))); nothing to do")
        } else if report.dryRun {
            log(
                "dry run: would build \(spec.output.path) from \(report.inputs.count) files"
                    + (spec.tiles.maxZoomAuto ? ", max zoom auto (chosen from the data when built)" : "")
                    + " (fingerprint \(report.fingerprint.prefix(12)))"
            )
        } else if report.conversion != nil, !report.published {
            let errors = report.findings.filter { $0.severity == .error }.count
            log("nothing was published (\(errors) problem(s) above); \(spec.output.path) is untouched", level: "error")
        } else if let c = report.conversion {
            if !report.missingLayers.isEmpty {
                log(
                    "published without \(report.missingLayers.map(\.layer).joined(separator: ", ")) (listed in "
                        + "kartpack_missing_layers)",
                    level: "warning")
            }
            if json {
                log(
                    "wrote \(c.output): \(c.tiles) tiles, \(c.bytes) bytes; \(c.featuresWritten) of \(c.featuresRead) "
                        + "features written"
                )
            } else if !quiet {
                Console.out(ConvertSummary.text(c), terminator: "")
            }
            if let incremental = report.incremental { log(incremental.summary) }
        }
        if let c = report.conversion, let failure = PackageOptions.environmentFailure(in: c) { return failure }
        return ExitCode(rawValue: report.exitCode) ?? .software
    }
}
