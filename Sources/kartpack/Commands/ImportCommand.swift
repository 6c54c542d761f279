import Foundation
import KartpackCore
import Nightly
import Import
import ConvertEngine
import Publishing

/// `kartpack import`: every Shapefile set and GeoPackage table in a GIS export (folder or .zip) becomes a layer of
/// one package.
struct ImportCommand: Command {
    static let name = "import"
    static let summary = "package every Shapefile and GeoPackage layer of a GIS export (folder or .zip)"
    static let options: [OptionSpec] = PackageOptions.specs
    static var help: String {
        helpText(
            usage: "kartpack import EXPORT(folder|.zip) -o OUT.pmtiles|OUT.mbtiles [options]",
            summary: """
                Finds every Shapefile set and GeoPackage table in the export (nested folders, any case of the
                extensions), converts each good one into a layer and prints a table: file, records, written,
                rejected, CRS, encoding, problems. A bad file does not stop the others from being read, but the
                package is published only when every layer could be read (with --allow-partial, the others are
                published and kartpack_missing_layers lists the rest). Messages name files by their path inside the
                export. Zip files are extracted into a private temporary folder with caps on entries, sizes and
                compression ratio; traversal names, links and nested archives are refused. Exit 0 when nothing was
                rejected, 65 when any file or record was.
                """,
            options: options,
            footer: "See docs/import.md.")
    }

    let export: String
    let convert: ConvertOptions
    let reportPath: String?
    let quiet: Bool
    let stylePath: String?
    let sourceCRS: String?
    let encoding: String?
    let policy: InputErrorPolicy

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        guard p.positionals.count == 1 else {
            throw UsageError(message: "import needs exactly one EXPORT (folder or .zip)")
        }
        export = p.positionals[0]
        convert = try PackageOptions.options(p, inputs: [])
        reportPath = p.value("report")
        quiet = p.flag("quiet")
        stylePath = p.value("style")
        sourceCRS = p.value("source-crs")
        encoding = p.value("encoding")
        policy = PackageOptions.policy(p)
    }

    func run() throws -> ExitCode {
        guard FileManager.default.fileExists(atPath: export) else {
            Console.error("\(export): no such file or folder")
            return .noInput
        }
        var clipInputs: [OutputCollision.Role] = []
        guard RunGuard.checkClip(convert.clip, inputs: &clipInputs) else { return .noInput }
        try PackageOptions.checkSourceCRS(sourceCRS)
        var convert = self.convert
        try PackageOptions.loadStyle(stylePath, into: &convert, quiet: quiet)
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: export, isDirectory: &isFolder)
        var inputs =
            isFolder.boolValue
            ? RunGuard.filesBelow(export, role: "file of the export") : [OutputCollision.Role(export, as: "export")]
        inputs += clipInputs
        if let stylePath { inputs.append(OutputCollision.Role(stylePath, as: "stylesheet")) }
        inputs += (convert.style?.referencedFiles ?? []).map { OutputCollision.Role($0, as: "icon") }
        inputs.append(OutputCollision.Role(RunLock.lockPath(forOutput: convert.output), as: "output's lock file"))
        var outputs = [OutputCollision.Role(convert.output, as: "output package")]
        if let reportPath { outputs.append(OutputCollision.Role(reportPath, as: "--report")) }
        try RunGuard.check(outputs: outputs, inputs: inputs)
        RunGuard.sweep(smallOutputs: reportPath.map { [$0] } ?? [])
        // Extraction folders of imports that were killed (their owner provably gone) are removed.
        for path in ExtractionFolders.removeAbandoned(parent: convert.temporaryDirectory) {
            Console.error("removed \(path), left by an import that was killed")
        }
        let signals = PackageOptions.signalTrap()
        defer { signals.uninstall() }
        let lock = try RunGuard.lock(
            output: convert.output, temporaryDirectory: convert.temporaryDirectory, scratch: convert.scratchDirectory)
        defer { lock.release() }
        var importer = Importer(export: export, options: convert, sourceCRS: sourceCRS, encoding: encoding)
        importer.policy = policy
        var result: ImportResult
        do {
            result = try DiagnosticTail.around(PackageOptions.sink(quiet: quiet), quiet: quiet) { sink in
                try importer.run(
                    diagnostics: sink, progress: ProgressReporter.forStandardError(enabled: !quiet),
                    isCancelled: { signals.cancelled })
            }
        } catch {
            if signals.cancelled {
                Console.error("interrupted; nothing was published")
                return signals.exitCode ?? .interrupted
            }
            throw error
        }
        if signals.cancelled {
            Console.error("interrupted; nothing was published")
            return signals.exitCode ?? .interrupted
        }
        if let report = result.report, let failure = PackageOptions.environmentFailure(in: report) {
            result.exitCode = failure
        }
        if let reportPath, let report = result.report, !PackageOptions.writeReport(report, to: reportPath) {
            return .ioError
        }
        if let report = result.report {
            Console.out(Self.table(report, found: result.found.map(\.relativePath)), terminator: "")
        }
        PackageOptions.printFindings(result.findings, quiet: quiet)
        if let failure = result.failure { Console.error(failure) }
        if let report = result.report, result.published, !quiet {
            Console.out("wrote \(report.output): \(report.tiles) tiles, \(ConvertSummary.bytes(report.bytes))")
        }
        return result.exitCode
    }

    /// One row per input layer found: those the run read with their counts, then those it did not read because a
    /// rejected set stopped the build first (`not read`), so every set of the export is listed.
    static func table(_ r: ConvertReport, found: [String] = []) -> String {
        let header = ["file", "records", "written", "rejected", "crs", "encoding", "problems"]
        var rows: [[String]] = [header]
        for i in r.inputs {
            let rejected = i.rejected.values.reduce(0, +)
            var problems = i.rejected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            if let code = i.errorCode { problems.insert("REJECTED: \(code)", at: 0) }
            problems += i.coercedToNull.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            rows.append([
                i.path, String(i.records), String(i.written), String(rejected), i.crs ?? "-", i.encoding ?? "-",
                problems.isEmpty ? "-" : problems.joined(separator: ", "),
            ])
        }
        let read = Set(r.inputs.map(\.path))
        for path in found where !read.contains(path) {
            rows.append([path, "-", "-", "-", "-", "-", "not read: the build stopped at a rejected set"])
        }
        let widths = (0..<header.count).map { c in rows.map { $0[c].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { c, cell in
                c == row.count - 1 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}
