import Foundation
import KartpackCore
import ConvertEngine
import Publishing
import TileArchive

/// `kartpack merge PART… -o OUT`: joins the parts of a sharded build (docs/cluster.md).
struct MergeCommand: Command {
    static let name = "merge"
    static let summary = "join the parts of a sharded build into the package one machine would have built"
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "output", kind: .value, help: "the package: the plan's -o file name (.pmtiles or .mbtiles)",
            valueName: "OUT", short: "o"),
        OptionSpec(name: "force", kind: .flag, help: "replace an existing package"),
        OptionSpec(name: "temp-dir", kind: .value, help: "folder for the writer's scratch file", valueName: "DIR"),
        OptionSpec(name: "quiet", kind: .flag, help: "print nothing on success"),
    ]
    static var help: String {
        helpText(
            usage: "kartpack merge PART [PART ...] -o OUT.pmtiles|OUT.mbtiles [--force]",
            summary: """
                Joins the part files of every shard of one plan (`kartpack convert --plan PLAN.json --shard I/N`)
                into the package, byte-identical to the one `kartpack convert` builds on one machine from the same
                inputs and options, written to a temporary file and renamed into place. Refuses with exit 65, and
                publishes nothing, when a shard is missing or given twice, when ranges overlap or leave a gap, when
                parts come from different plans, inputs or Kartpack versions, and when a part is cut or damaged.
                """,
            options: options,
            footer: "See docs/cluster.md.")
    }

    let parts: [String]
    let output: String
    let force: Bool
    let temporaryDirectory: String?
    let quiet: Bool

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        guard !p.positionals.isEmpty else { throw UsageError(message: "merge needs at least one PART") }
        guard let output = p.value("output") else { throw UsageError(message: "merge needs -o OUT") }
        parts = p.positionals
        self.output = output
        force = p.flag("force")
        temporaryDirectory = p.value("temp-dir")
        quiet = p.flag("quiet")
    }

    func run() throws -> ExitCode {
        let signals = PackageOptions.signalTrap()
        defer { signals.uninstall() }
        let summary: ArchiveSummary
        do {
            summary = try ShardMerger(
                parts: parts, output: output, force: force, temporaryDirectory: temporaryDirectory
            )
            .run { if signals.cancelled { throw PipelineError.interrupted(signal: 0) } }
        } catch {
            if signals.cancelled {
                Console.error("interrupted; nothing was published")
                return signals.exitCode ?? .interrupted
            }
            throw error
        }
        if !quiet {
            Console.out("wrote \(output): \(summary.addressedTiles) tiles from \(parts.count) part(s)")
        }
        return .success
    }
}
