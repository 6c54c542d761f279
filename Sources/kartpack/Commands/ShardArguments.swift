import Foundation

/// The command-line rules of sharded builds: which `convert` options only say how a machine runs (threads,
/// memory, scratch, report, console, overwrite) and so stay out of a plan and may differ per shard, and how they
/// are taken out of an argument list.
enum ShardArguments {
    /// Options that do not change the package's bytes: a shard gives its own.
    static let runOnly: Set<String> = ["threads", "memory-budget", "temp-dir", "scratch", "report", "quiet", "force"]
    /// Of those, the ones whose value is a path (made absolute before a shard moves to the plan's folder).
    static let pathValued: Set<String> = ["temp-dir", "scratch", "report", "output"]

    /// Splits `arguments` into those not named in `names` and those named (each option with its value, paths made
    /// absolute when `absolute`), following the parser's rules (`--name value`, `--name=value`, `-o value`).
    static func split(_ arguments: [String], removing names: Set<String>, options: [OptionSpec], absolute: Bool = false)
        -> (kept: [String], removed: [String])
    {
        var byName: [String: OptionSpec] = [:]
        var byShort: [String: String] = [:]
        for o in options {
            byName[o.name] = o
            if let c = o.short { byShort["-\(c)"] = o.name }
        }
        var kept: [String] = []
        var removed: [String] = []
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if arg == "--" {
                kept += arguments[(i - 1)...]
                break
            }
            let long = byShort[arg].map { "--" + $0 } ?? arg
            guard long.hasPrefix("--") else {
                kept.append(arg)
                continue
            }
            var name = String(long.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            let takesValue = byName[name].map { $0.kind != .flag } ?? false
            var value = inline
            if takesValue, inline == nil, i < arguments.count {
                value = arguments[i]
                i += 1
            }
            guard names.contains(name) else {
                kept.append(arg)
                if takesValue, inline == nil, let value { kept.append(value) }
                continue
            }
            removed.append("--" + name)
            if let value {
                removed.append(absolute && pathValued.contains(name) ? absolutePath(value) : value)
            }
        }
        return (kept, removed)
    }

    /// A plan command line's `--shards N` and `--plan PLAN.json` (a plan builds: no `--dry-run`).
    static func planTarget(_ p: ParsedArguments) throws(UsageError) -> (shards: Int, plan: String) {
        guard let shards = try p.int("shards", in: 1...4096) else { throw UsageError(message: "plan needs --shards N") }
        guard let planPath = p.value("plan") else { throw UsageError(message: "plan needs --plan PLAN.json") }
        guard !p.flag("dry-run") else { throw UsageError(message: "a plan builds: --dry-run is not part of it") }
        return (shards, planPath)
    }

    /// A command's `--plan PLAN.json` (`help` says what the shard builds) and `--shard I/N` options.
    static func planOptions(_ help: String) -> [OptionSpec] {
        [
            OptionSpec(name: "plan", kind: .value, help: help, valueName: "PLAN.json"),
            OptionSpec(name: "shard", kind: .value, help: "the shard of --plan to build, 0 <= I < N", valueName: "I/N"),
        ]
    }

    /// `path` from the current folder, as an absolute path.
    static func absolutePath(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
