import Foundation
import KartpackCore
import ConvertEngine
import PipelineFiles

/// `kartpack convert --plan PLAN.json --shard I/N -o PART`: one shard of a plan (`kartpack plan`). The inputs and
/// every option that changes bytes come from the plan, read in the plan's folder, so shards cannot differ; the
/// shard's own options are only those that say how this machine runs (`ShardArguments.runOnly`). Before building,
/// the inputs' fingerprint must still be the plan's (exit 65 otherwise); then the shard converts as the whole
/// build does, with the same guards, report and exit codes, and publishes its part file atomically at PART.
struct ShardRequest {
    var line: ShardCommandLine

    init(_ p: ParsedArguments, arguments: [String]) throws(UsageError) {
        line = try ShardCommandLine(
            p, arguments: arguments, options: ConvertCommand.options, runOnly: ShardArguments.runOnly,
            what: "the inputs", part: "PART, its part file")
    }

    /// Checks the plan and the inputs, then builds the part.
    func run() throws -> ExitCode {
        let (plan, digest, parsed) = try line.open(
            command: "convert", parse: ConvertCommand.init(arguments:),
            fingerprint: { command, plan in
                try ShardArguments.planner(command, arguments: plan.arguments).currentFingerprint(
                    planned: plan.fingerprint, stamps: plan.inputStamps)
            })
        var command = parsed
        let target = line.target(in: plan, digest: digest)
        command.convert.output = line.part
        command.convert.format = plan.format
        // The package is named after the merged file, not the part.
        if command.convert.name == nil {
            command.convert.name = (target.outputName as NSString).deletingPathExtension
        }
        command.convert.shard = target
        return try command.run()
    }
}

/// A shard's command line (`convert`, `run`, `package` with `--plan` and `--shard`): the plan, the shard, its part
/// (`-o`) and its run-only options; anything else is a usage error, since the plan gives it.
struct ShardCommandLine {
    var plan: String
    var shard: Int
    var shards: Int
    var part: String
    /// The run-only options given, paths made absolute.
    var local: [String]

    /// `what` names what the plan gives instead of positional arguments (`the inputs`, `the pipeline`), `part`
    /// what `-o` is (`PART, its part file`).
    init(
        _ p: ParsedArguments, arguments: [String], options: [OptionSpec], runOnly: Set<String>, what: String,
        part partName: String
    ) throws(UsageError) {
        guard p.positionals.isEmpty else {
            throw UsageError(message: "with --plan \(what) comes from the plan: give none on the command line")
        }
        let (plan, i, n) = try ShardArguments.planAndShard(p)
        guard let part = p.value("output") else { throw UsageError(message: "a shard needs -o \(partName)") }
        let stray =
            ShardArguments.split(arguments, removing: runOnly.union(["plan", "shard", "output"]), options: options)
            .kept
        guard stray.isEmpty else {
            throw UsageError(
                message: "with --plan \(what) and the options come from the plan; a shard takes only --shard, -o and "
                    + runOnly.sorted().map { "--" + $0 }.joined(separator: ", ") + ", not "
                    + stray.joined(separator: " "))
        }
        self.plan = ShardArguments.absolutePath(plan)
        self.part = ShardArguments.absolutePath(part)
        shard = i
        shards = n
        local = ShardArguments.split(arguments, removing: runOnly, options: options, absolute: true).removed
    }
}

extension ShardCommandLine {
    /// Reads this shard's plan, refuses one of another `command` (65) or shard count, and enters its folder.
    private func openPlan(command: String) throws -> (plan: ShardPlan, digest: String) {
        let (plan, digest) = try ShardPlan.read(path: self.plan)
        guard plan.command == command else {
            throw ShardError.damaged(path: self.plan, reason: "a plan for `\(plan.command)`, not `\(command)`")
        }
        guard shards == plan.shards.count else { throw ShardError.noSuchShard(index: shard, count: shards) }
        guard FileManager.default.changeCurrentDirectoryPath(plan.directory) else {
            throw ShardError.missing(path: plan.directory, reason: "the plan's folder cannot be entered")
        }
        return (plan, digest)
    }

    /// Opens the plan of `command` (`openPlan`), parses the plan's command line with this shard's run-only options
    /// (`parse`), and checks that the inputs' fingerprint (`fingerprint`, of the parsed command) is still the
    /// plan's: a plan whose arguments are not such a command line is damaged, changed inputs refuse the shard (65).
    func open<Command>(
        command name: String, parse: ([String]) throws -> Command,
        fingerprint: (Command, ShardPlan) throws -> String
    ) throws -> (plan: ShardPlan, digest: String, command: Command) {
        let (plan, digest) = try openPlan(command: name)
        let command: Command
        do {
            command = try parse(plan.arguments + local)
        } catch {
            throw ShardError.damaged(path: self.plan, reason: "its arguments are not a \(name) command line: \(error)")
        }
        let now = try fingerprint(command, plan)
        guard now == plan.fingerprint else {
            throw ShardError.inputsChanged(plan: self.plan, planned: plan.fingerprint, now: now)
        }
        return (plan, digest, command)
    }

    /// What this shard of `plan` (read with `digest`) builds: its tiles, the plan's split zoom, the merged
    /// file's name and the files whose record boxes are not trusted.
    func target(in plan: ShardPlan, digest: String) -> ShardTarget {
        var target = ShardTarget(
            planDigest: digest, shard: shard, shards: shards, tiles: plan.shards[shard],
            outputName: (plan.output as NSString).lastPathComponent, splitZoom: plan.splitZoom)
        target.untrustedBoxes = plan.untrustedBoxes
        return target
    }
}

extension ShardArguments {
    /// `--plan PLAN.json` and `--shard I/N` (they go together; 0 <= I < N).
    static func planAndShard(_ p: ParsedArguments) throws(UsageError) -> (plan: String, shard: Int, shards: Int) {
        guard let plan = p.value("plan"), let spec = p.value("shard") else {
            throw UsageError(message: "--plan PLAN.json and --shard I/N go together")
        }
        let numbers = spec.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard numbers.count == 2, let i = numbers[0], let n = numbers[1], n >= 1, (0..<n).contains(i) else {
            throw UsageError(message: "--shard \(spec): give I/N with 0 <= I < N (the first shard is 0/N)")
        }
        return (plan, i, n)
    }

    /// The planner of a parsed `convert` command line: its options with the stylesheet loaded, so the sheet and its
    /// icons are fingerprinted too.
    static func planner(_ command: ConvertCommand, arguments: [String]) throws -> ShardPlanner {
        var options = command.convert
        try PackageOptions.loadStyle(command.stylePath, into: &options, quiet: true)
        let files = (command.stylePath.map { [$0] } ?? []) + (options.style?.referencedFiles ?? [])
        return ShardPlanner(options: options, arguments: arguments, otherFiles: files)
    }
}
