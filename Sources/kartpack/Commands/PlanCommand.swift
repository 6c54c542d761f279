import Foundation
import KartpackCore
import ConvertEngine

/// `kartpack plan INPUT… -o OUT.pmtiles [convert options] --shards N --plan PLAN.json`: splits a `convert` build
/// into N shards for a cluster's array job (docs/cluster.md).
struct PlanCommand: Command {
    static let name = "plan"
    static let summary = "split a convert or package build into shards for a cluster (Slurm, Kubernetes)"
    static let options: [OptionSpec] =
        ConvertCommand.options.filter { !["plan", "shard"].contains($0.name) } + [
            OptionSpec(name: "shards", kind: .value, help: "how many shards (1 to 4096)", valueName: "N"),
            OptionSpec(name: "plan", kind: .value, help: "the plan file to write", valueName: "PLAN.json"),
            OptionSpec(
                name: "split-zoom", kind: .value,
                help: "the zooms below Z go whole to shard 0, the tiles of Z and up are split among the other shards "
                    + "(default: the max zoom; auto: the lowest zoom whose densest tile the plan estimates at under "
                    + "half the tile limits, else the max zoom); a shard refuses a Z that is thinned (docs/cluster.md)",
                valueName: "Z|auto"),
        ]
    static var help: String {
        helpText(
            usage: "kartpack plan INPUT.shp [INPUT2.shp ...] -o OUT.pmtiles|OUT.mbtiles [convert options] --shards N "
                + "--plan PLAN.json\n       kartpack plan PIPELINE.json [--set KEY=VALUE ...] [--allow-partial] "
                + "--shards N --plan PLAN.json\n       kartpack plan --package PIPELINE.json [package options] "
                + "--shards N --plan PLAN.json",
            summary: """
                Writes a shard plan for the convert command line given (the same inputs and options as convert):
                the inputs' fingerprint, the options, and N contiguous ranges of the archive's tile order of about
                equal cost (estimated from the records' boxes). Then `kartpack convert --plan PLAN.json --shard I/N
                -o PART` builds shard I on any machine that sees the same files at the same paths, and `kartpack
                merge PART... -o OUT` joins the parts into the package `convert` would have written, byte for byte.
                --threads, --memory-budget, --temp-dir, --scratch, --report, --quiet and --force are not part of
                the plan: each shard gives its own.
                With --package, the plan is of a `kartpack package PIPELINE.json [package options]` build: N groups
                of regions of about equal cost (their bounding boxes' area), and `kartpack package --plan PLAN.json
                --shard I/N -o PARTDIR` builds group I's packages, unsigned, into the part folder PARTDIR.
                With a pipeline file first (and no --package), the plan is of `kartpack run PIPELINE.json`: the
                same ranges, then `kartpack run --plan PLAN.json --shard I/N -o PART` and `kartpack merge`.
                """,
            options: options,
            footer: "See docs/cluster.md for Slurm and Kubernetes.")
    }

    let shards: Int
    let planPath: String
    let splitZoom: Int?
    /// `--split-zoom auto`: the plan chooses the split zoom from its estimate.
    var chooseSplit = false
    let arguments: [String]
    let command: ConvertCommand?
    /// `--package`: the plan of a `package` build instead.
    let packagePlan: PackagePlanRequest?
    /// `PIPELINE.json` first: the plan of a `run`.
    var runPlan: RunPlanRequest?

    init(arguments: [String]) throws(UsageError) {
        if !arguments.contains("--package"), RunPlanRequest.isPipeline(arguments) {
            let request = try RunPlanRequest(arguments: arguments)
            self.shards = request.shards
            self.planPath = request.planPath
            self.splitZoom = request.splitZoom
            self.chooseSplit = request.chooseSplit
            self.arguments = request.arguments
            self.command = nil
            self.packagePlan = nil
            self.runPlan = request
            return
        }
        if arguments.contains("--package") {
            let request = try PackagePlanRequest(arguments: arguments)
            self.shards = request.shards
            self.planPath = request.planPath
            self.splitZoom = nil
            self.arguments = request.arguments
            self.command = nil
            self.packagePlan = request
            return
        }
        packagePlan = nil
        let p = try ParsedArguments(arguments, options: Self.options)
        guard let shards = try p.int("shards", in: 1...4096) else { throw UsageError(message: "plan needs --shards N") }
        guard let planPath = p.value("plan") else { throw UsageError(message: "plan needs --plan PLAN.json") }
        self.shards = shards
        self.planPath = planPath
        (splitZoom, chooseSplit) = try Self.splitZoom(p)
        self.arguments =
            ShardArguments.split(
                arguments, removing: ShardArguments.runOnly.union(["shards", "plan", "split-zoom"]),
                options: Self.options
            ).kept
        command = try ConvertCommand(arguments: self.arguments)
    }

    func run() throws -> ExitCode {
        if let packagePlan { return try packagePlan.run() }
        if let runPlan { return try runPlan.run() }
        guard let command else { return .software }
        let missing = command.convert.inputs.map(\.path).filter { !FileManager.default.fileExists(atPath: $0) }
        if !missing.isEmpty {
            for m in missing { Console.error("\(m): no such file or folder") }
            return .noInput
        }
        let planner = try ShardArguments.planner(command, arguments: arguments)
        let plan = try planner.plan(
            shards: shards, directory: FileManager.default.currentDirectoryPath, splitZoom: splitZoom,
            chooseSplit: chooseSplit)
        let digest = try plan.write(to: planPath)
        Self.describe(plan, path: planPath, digest: digest)
        return .success
    }

    /// `--split-zoom Z|auto`: the zoom given, or none and whether the plan chooses it (`auto`).
    static func splitZoom(_ p: ParsedArguments) throws(UsageError) -> (zoom: Int?, choose: Bool) {
        if p.value("split-zoom") == "auto" { return (nil, true) }
        return (try p.int("split-zoom", in: 0...30), false)
    }

    /// Prints what a convert or run plan holds: its shards' tiles (key ranges) and the files read whole.
    static func describe(_ plan: ShardPlan, path: String, digest: String) {
        let split = "split at zoom \(plan.splitZoom)" + (plan.splitNote.map { ", \($0)" } ?? "")
        let shards = plan.shards.count
        Console.out("\(path): \(shards) shard(s) of \(plan.output), plan \(digest.prefix(12)), \(split)")
        for (i, t) in plan.shards.enumerated() { Console.out("  shard \(i)/\(shards): tiles \(t.text)") }
        for line in plan.untrustedBoxes.lines { Console.out(line) }
    }
}
