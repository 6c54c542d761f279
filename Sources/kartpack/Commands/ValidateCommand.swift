import Foundation
import KartpackCore
import PipelineFiles
/// `kartpack validate`: checks a stylesheet (and, with `--layers`, that its rules can match those layers).
struct ValidateCommand: Command {
    static let name = "validate"
    static let summary = "check a stylesheet (.kss) or a pipeline (.json) without building anything"
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "layers", kind: .flag,
            help: "the remaining arguments are Shapefiles (or folders) to lint the sheet against"),
        OptionSpec(name: "format", kind: .value, help: "text (default) or json", valueName: "text|json"),
        OptionSpec(
            name: "set", kind: .repeatable, help: "pipelines: override a value, e.g. tiles.maxZoom=12",
            valueName: "KEY=VALUE"),
    ]
    static var help: String {
        helpText(
            usage: """
                kartpack validate STYLE.kss [--layers INPUT.shp ...] [--format text|json]
                       kartpack validate PIPELINE.json [--set KEY=VALUE ...]
                """,
            summary: """
                Parses the stylesheet and reports errors and warnings as file:line:column, lints its rules against
                the layers given after --layers (unknown layers or fields, comparisons that can never match), and
                runs its @example blocks. For a pipeline: checks the file (unknown keys, types, ranges), its input
                files, their CRSs, record filters, the clip region and the stylesheet, without building.
                Exits 0 when there is no error, 78 otherwise.
                """,
            options: options)
    }

    let path: String
    let layers: [String]
    let json: Bool
    let overrides: [String]

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        guard let first = p.positionals.first else { throw UsageError(message: "validate needs a STYLE.kss") }
        path = first
        layers = Array(p.positionals.dropFirst())
        if !layers.isEmpty && !p.flag("layers") {
            throw UsageError(message: "give the layers to lint against after --layers")
        }
        json = try p.choice("format", ["text", "json"], default: "text") == "json"
        overrides = p.values("set")
    }

    func run() throws -> ExitCode {
        guard FileManager.default.fileExists(atPath: path) else {
            Console.error("\(path): no such file")
            return .noInput
        }
        if path.lowercased().hasSuffix(".json") {
            // A pipeline file that cannot be read at all (a FIFO or device: 66; no descriptor left: 74) is not a
            // configuration error.
            do { _ = try PipelineSpec.load(path: path, overrides: overrides) } catch  where error.exitCode != .config {
                Console.error(error.description)
                return error.exitCode
            } catch {}
            let (errors, warnings, notes) = PipelineRunner.validate(path: path, overrides: overrides)
            if let exhausted = Self.outOfDescriptors(errors + warnings) { return exhausted }
            for n in notes { Console.out("note: \(n)") }
            for w in warnings { Console.out("warning: \(w)") }
            for e in errors { Console.out("error: \(e)") }
            Console.out("\(path): \(errors.count) error(s), \(warnings.count) warning(s)")
            return errors.isEmpty ? .success : .config
        }
        let diagnostics = StyleLoader.validate(path: path, inputs: layers)
        if let exhausted = Self.outOfDescriptors(diagnostics.map(\.description)) { return exhausted }
        let errors = diagnostics.filter { $0.severity == .error }.count
        let warnings = diagnostics.filter { $0.severity == .warning }.count
        if json {
            struct Entry: Encodable { var severity, code, file, message: String; var line, column: Int }
            struct Out: Encodable { var file: String; var errors, warnings: Int; var diagnostics: [Entry] }
            let out = Out(
                file: path, errors: errors, warnings: warnings,
                diagnostics: diagnostics.map {
                    Entry(
                        severity: $0.severity.rawValue, code: $0.code, file: $0.file, message: $0.message,
                        line: $0.line, column: $0.column)
                })
            Console.out(try InspectRendering.json(out))
        } else {
            for d in diagnostics { Console.out(d.description) }
            Console.out("\(path): \(errors) error(s), \(warnings) warning(s)")
        }
        return errors > 0 ? .config : .success
    }

    /// Running out of file descriptors is the machine's fault, not the file's: when a check failed for that
    /// reason, says so on stderr (naming the limit) and gives exit 74 instead of listing it as an error (78).
    private static func outOfDescriptors(_ lines: [String]) -> ExitCode? {
        let emfile = String(cString: strerror(EMFILE))
        let hit = lines.filter { $0.contains(OpenFileLimit.code.rawValue) || $0.contains(emfile) }
        guard !hit.isEmpty else { return nil }
        for line in hit.prefix(3) { Console.error(line) }
        if hit.count > 3 { Console.error("… and \(hit.count - 3) more checks that could not open a file") }
        if !hit.contains(where: { $0.contains("(ulimit -n)") }) { Console.error(OpenFileLimit.message(errno: EMFILE)) }
        return .ioError
    }
}
