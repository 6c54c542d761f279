import Foundation
import KartpackCore
import KartpackJSON
import ConvertEngine
import PipelineFiles
import RegionPackages
import Styling

/// `kartpack plan --package PIPELINE.json [package options] --shards N --plan PLAN.json`: splits a `package` build
/// into N shards of regions of about equal cost (`RegionShardPlan.groups`) for a cluster's array job
/// (docs/cluster.md).
struct PackagePlanRequest {
    /// `package` options that do not change the packages' bytes: a shard gives its own.
    static let runOnly: Set<String> = ["threads", "report", "quiet", "force"]
    static let options: [OptionSpec] =
        PackageCommand.options.filter { !["plan", "shard"].contains($0.name) } + [
            OptionSpec(name: "package", kind: .flag, help: "plan a `package` build (groups of regions)"),
            OptionSpec(name: "shards", kind: .value, help: "how many shards (1 to 4096)", valueName: "N"),
            OptionSpec(name: "plan", kind: .value, help: "the plan file to write", valueName: "PLAN.json"),
        ]

    let shards: Int
    let planPath: String
    /// The package command line the shards run (without the plan's and the run-only options).
    let arguments: [String]
    let command: PackageCommand

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        (shards, planPath) = try ShardArguments.planTarget(p)
        self.arguments =
            ShardArguments.split(
                arguments, removing: Self.runOnly.union(["shards", "plan", "package"]), options: Self.options
            ).kept
        command = try PackageCommand(arguments: self.arguments)
    }

    func run() throws -> ExitCode {
        guard FileManager.default.fileExists(atPath: command.pipeline) else {
            Console.error("\(command.pipeline): no such file (pipeline)")
            return .noInput
        }
        let (o, fingerprint, untrusted, stamps) = try command.planFingerprint(arguments: arguments, auditing: true)
        let set = try RegionSet(path: o.regionsPath, idField: o.idField, nameField: o.nameField, filter: o.filter)
        var plan = RegionShardPlan(
            directory: FileManager.default.currentDirectoryPath, arguments: arguments, output: o.outputFolder,
            fingerprint: fingerprint, groups: RegionShardPlan.groups(set.regions, shards: shards))
        plan.untrustedBoxes = untrusted
        plan.inputStamps = stamps
        let digest = try plan.write(to: planPath)
        Console.out(
            "\(planPath): \(shards) shard(s) of \(o.outputFolder) (\(set.regions.count) regions), "
                + "plan \(digest.prefix(12))")
        for (i, ids) in plan.groups.enumerated() { Console.out("  shard \(i)/\(shards): \(ids.count) regions") }
        for line in untrusted.lines { Console.out(line) }
        return .success
    }
}

/// `kartpack package --plan PLAN.json --shard I/N -o PARTDIR`: one shard of a package plan. The pipeline and every
/// option that changes bytes come from the plan, read in the plan's folder; the shard's own options are only
/// `PackagePlanRequest.runOnly`. Before building, the inputs' fingerprint must still be the plan's (exit 65
/// otherwise); then the shard's regions are built as the whole build builds them (same report and exit codes) into
/// PARTDIR, a package folder of its own, unsigned, with `shard.json` naming the plan and the shard.
struct PackageShardRequest {
    var plan: String
    var shard: Int
    var shards: Int
    var part: String
    /// The shard's run-only options, paths made absolute.
    var local: [String]
    /// `--merge PARTDIR…`: the part folders to publish the plan's folder from (then `shard` and `part` are unused).
    var merge: [String]?

    init(_ p: ParsedArguments, arguments: [String]) throws(UsageError) {
        let runOnly = PackagePlanRequest.runOnly
        local =
            ShardArguments.split(arguments, removing: runOnly, options: PackageCommand.options, absolute: true).removed
        if p.flag("merge") {
            guard let plan = p.value("plan"), p.value("shard") == nil, p.value("output") == nil else {
                throw UsageError(message: "--merge takes --plan PLAN.json and the part folders; the plan names -o")
            }
            guard !p.positionals.isEmpty else { throw UsageError(message: "--merge needs the part folders") }
            let stray = ShardArguments.split(
                arguments, removing: runOnly.union(["plan", "merge"]), options: PackageCommand.options
            ).kept.filter { !p.positionals.contains($0) }
            guard stray.isEmpty else {
                throw UsageError(
                    message: "--merge takes its options from the plan, not " + stray.joined(separator: " "))
            }
            self.plan = ShardArguments.absolutePath(plan)
            merge = p.positionals.map(ShardArguments.absolutePath)
            shard = 0
            shards = 0
            part = ""
            return
        }
        let line = try ShardCommandLine(
            p, arguments: arguments, options: PackageCommand.options, runOnly: runOnly, what: "the pipeline",
            part: "PARTDIR, its part folder")
        (plan, shard, shards, part) = (line.plan, line.shard, line.shards, line.part)
    }

    /// Checks the plan and the inputs, then builds the shard's regions into the part folder.
    func run() throws -> ExitCode {
        let (plan, digest) = try RegionShardPlan.read(path: self.plan)
        guard merge != nil || shards == plan.groups.count else {
            throw ShardError.noSuchShard(index: shard, count: shards)
        }
        guard FileManager.default.changeCurrentDirectoryPath(plan.directory) else {
            throw ShardError.missing(path: plan.directory, reason: "the plan's folder cannot be entered")
        }
        func parse(_ arguments: [String]) throws -> PackageCommand {
            do {
                return try PackageCommand(arguments: arguments)
            } catch {
                throw ShardError.damaged(
                    path: self.plan, reason: "its arguments are not a package command line: \(error)")
            }
        }
        if let merge {
            // The shards checked the inputs against the plan; the merge checks that the parts are the plan's
            // and agree, and takes the fingerprints from them: it reads no source.
            var command = try parse(plan.arguments + local)
            command.partsByRegion = try PackagePartSet.check(merge, plan: plan, digest: digest)
            return try command.run()
        }
        let (_, now, _, _) = try parse(plan.arguments).planFingerprint(
            arguments: plan.arguments, trusting: (plan.fingerprint, plan.inputStamps))
        guard now == plan.fingerprint else {
            throw ShardError.inputsChanged(plan: self.plan, planned: plan.fingerprint, now: now)
        }
        let base = ShardArguments.split(plan.arguments, removing: ["output"], options: PackageCommand.options).kept
        var command = try parse(base + local + ["-o", part])
        // A part folder used before (a rerun, last night's plan) says it is finished only once this run is.
        if unlink(part + "/shard.json") != 0, errno != ENOENT {
            throw PipelineError.badOutput(path: part + "/shard.json", reason: "cannot remove the earlier manifest")
        }
        command.shardRegions = Set(plan.groups[shard])
        command.shardReadWhole = plan.untrustedBoxes.paths
        let exit = try command.run()
        if exit == .success {
            let manifest = JSONWriter.text(
                .object([
                    ("kartpackPackagePart", .int(1)), ("plan", .string(digest)), ("shard", .int(Int64(shard))),
                    ("shards", .int(Int64(shards))), ("fingerprint", .string(plan.fingerprint)),
                ]), format: .pretty)
            guard FileManager.default.createFile(atPath: part + "/shard.json", contents: Data(manifest.utf8)) else {
                throw PipelineError.badOutput(path: part + "/shard.json", reason: "cannot write the part's manifest")
            }
        }
        return exit
    }
}

extension PackageCommand {
    /// The region options this command line packages (pipeline, regions, filter, folder) and the fingerprint a
    /// plan records: the Kartpack version, the command line, the pipeline, stylesheet and regions files' bytes and
    /// every source's records (`ShardPlanner.fingerprint`); `auditing` (a plan), also the sources whose stored
    /// record boxes cannot be trusted and the files' stamps (`ShardPlanner.stampedAudit`; empty and nil otherwise).
    /// `trusting` (a shard: the plan's fingerprint and stamps) gives the plan's fingerprint when every file still
    /// has its stamp (`ShardPlanner.currentFingerprint`).
    func planFingerprint(
        arguments: [String], auditing: Bool = false, trusting: (fingerprint: String, stamps: InputStamps?)? = nil
    ) throws -> (
        options: RegionPackageOptions, fingerprint: String, untrustedBoxes: UntrustedRecordBoxes,
        stamps: InputStamps?
    ) {
        let spec = try PipelineSpec.load(path: pipeline, overrides: overrides)
        let section = spec.regions
        guard let regions = regionsFlag ?? section?.path, let idField = idFieldFlag ?? section?.idField,
            let output = outputFlag ?? section?.output
        else {
            throw UsageError(
                message: "package needs --regions, --id-field and -o, or a regions section in \(pipeline)")
        }
        guard FileManager.default.fileExists(atPath: regions) else {
            throw ShardError.missing(path: regions, reason: "no such file (--regions)")
        }
        var o = try RegionPackageOptions.from(spec: spec, regionsPath: regions, idField: idField, outputFolder: output)
        o.nameField = nameFieldFlag ?? section?.nameField
        if let whereText = whereFlag ?? section?.filter {
            let (filter, problems) = AttributeFilterList.parse(whereText, file: "--where")
            if let bad = problems.first(where: { $0.severity == .error }) {
                throw UsageError(message: "\(whereText): \(bad.message) (column \(bad.column))")
            }
            o.filter = filter
        }
        let style = (spec.style.map { [$0] } ?? []) + (o.convert.style?.referencedFiles ?? [])
        let files = ([pipeline] + style + RegionPackager.shapefileSet(regions)).filter {
            FileManager.default.fileExists(atPath: $0)
        }
        let planner = ShardPlanner(options: o.convert, arguments: arguments, otherFiles: files)
        if let trusting {
            let now = try planner.currentFingerprint(planned: trusting.fingerprint, stamps: trusting.stamps)
            return (o, now, UntrustedRecordBoxes(), nil)
        }
        guard auditing else { return (o, try planner.fingerprint(), UntrustedRecordBoxes(), nil) }
        let (fingerprint, untrusted, stamps) = try planner.stampedAudit()
        return (o, fingerprint, untrusted, stamps)
    }
}
