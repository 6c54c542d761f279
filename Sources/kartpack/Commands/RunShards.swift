import Foundation
import KartpackCore
import ConvertEngine
import PipelineFiles

/// `kartpack plan PIPELINE.json [--set KEY=VALUE …] [--allow-partial] --shards N --plan PLAN.json [--split-zoom Z]`:
/// splits a `run` of a pipeline into N shards, as `kartpack plan INPUT… -o OUT` splits a `convert`
/// (docs/cluster.md): the same ranges of the archive's tile order, with the pipeline file, its stylesheet and icons
/// in the fingerprint. The plan's command is `run`; its arguments the `run` command line without the run-only
/// options.
struct RunPlanRequest {
    /// `run` options that do not change the package's bytes: a shard gives its own.
    static let runOnly: Set<String> = [
        "threads", "memory-budget", "scratch", "report", "quiet", "log-format", "force", "full",
    ]
    static let options: [OptionSpec] =
        RunCommand.options.filter { !["plan", "shard", "output"].contains($0.name) }
        + PlanCommand.options.filter { ["shards", "plan", "split-zoom"].contains($0.name) }

    let shards: Int
    let planPath: String
    let splitZoom: Int?
    /// `--split-zoom auto`.
    let chooseSplit: Bool
    /// The `run` command line the shards run: the pipeline, `--set` and `--allow-partial`.
    let arguments: [String]
    let command: RunCommand

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        (shards, planPath) = try ShardArguments.planTarget(p)
        (splitZoom, chooseSplit) = try PlanCommand.splitZoom(p)
        self.arguments =
            ShardArguments.split(
                arguments, removing: Self.runOnly.union(["shards", "plan", "split-zoom"]), options: Self.options
            ).kept
        command = try RunCommand(arguments: self.arguments)
    }

    /// True when `arguments` plan a pipeline: the first is a `.json` file.
    static func isPipeline(_ arguments: [String]) -> Bool {
        guard let first = arguments.first, !first.hasPrefix("-") else { return false }
        return first.lowercased().hasSuffix(".json")
    }

    func run() throws -> ExitCode {
        guard FileManager.default.fileExists(atPath: command.path) else {
            Console.error("\(command.path): no such file (pipeline)")
            return .noInput
        }
        let spec = try PipelineSpec.load(path: command.path, overrides: command.overrides)
        var plan = try PipelineRunner.shardPlanner(spec: spec, arguments: arguments).plan(
            shards: shards, directory: FileManager.default.currentDirectoryPath, splitZoom: splitZoom,
            chooseSplit: chooseSplit)
        plan.command = "run"
        let digest = try plan.write(to: planPath)
        PlanCommand.describe(plan, path: planPath, digest: digest)
        return .success
    }
}

/// `kartpack run --plan PLAN.json --shard I/N -o PART`: one shard of a pipeline's plan. The pipeline and every
/// option that changes bytes come from the plan, read in the plan's folder; the shard's own options are only
/// `RunPlanRequest.runOnly`. The inputs' fingerprint must still be the plan's (exit 65 otherwise); then the shard
/// converts as `run` does (`PipelineRunner.runShard`) and publishes its part file for `kartpack merge`.
struct RunShardRequest {
    var line: ShardCommandLine

    init(_ p: ParsedArguments, arguments: [String]) throws(UsageError) {
        line = try ShardCommandLine(
            p, arguments: arguments, options: RunCommand.options, runOnly: RunPlanRequest.runOnly,
            what: "the pipeline", part: "PART, its part file")
    }

    /// Checks the plan and the inputs, then builds the part.
    func run() throws -> ExitCode {
        let (plan, digest, parsed) = try line.open(
            command: "run", parse: RunCommand.init(arguments:),
            fingerprint: { command, plan in
                let spec = try PipelineSpec.load(path: command.path, overrides: command.overrides)
                return try PipelineRunner.shardPlanner(spec: spec, arguments: plan.arguments).currentFingerprint(
                    planned: plan.fingerprint, stamps: plan.inputStamps)
            })
        var command = parsed
        command.shard = RunCommand.Shard(
            target: line.target(in: plan, digest: digest), format: plan.format, part: line.part)
        return try command.run()
    }
}
