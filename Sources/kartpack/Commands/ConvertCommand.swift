import Foundation
import GeoPackage
import KartpackCore
import Nightly
import ConvertEngine
import Publishing
import Shapefile

/// `kartpack convert`: Shapefiles → a PMTiles or MBTiles vector-tile package.
struct ConvertCommand: Command {
    static let name = "convert"
    static let summary = "turn Shapefiles into a PMTiles or MBTiles vector-tile package"
    static let options: [OptionSpec] =
        PackageOptions.specs.map { spec in
            guard spec.name == "id-field" else { return spec }
            return OptionSpec(
                name: "id-field", kind: .repeatable,
                help: "attribute whose value is the feature id: integers as they are, text hashed (default: record "
                    + "number); once for every input, or once per input in order",
                valueName: "FIELD")
        } + [
            OptionSpec(
                name: "layer", kind: .repeatable,
                help:
                    "output layer name of the n-th input (repeat per input; default: file name); for a .gpkg the "
                    + "feature table to read (default: every one, each a layer named after its table)",
                valueName: "NAME")
        ]
        + ShardArguments.planOptions(
            "build one shard of a plan (`kartpack plan`): inputs and options come from the plan, -o is the shard's "
                + "part file for `kartpack merge`")
    static var help: String {
        helpText(
            usage: "kartpack convert INPUT.shp|INPUT.gpkg [INPUT2 ...] -o OUT.pmtiles|OUT.mbtiles [options]",
            summary: """
                Reprojects each input to Web Mercator, cuts it into MVT tiles for every zoom (clipped to each tile
                plus a buffer: polygons in Swift, lines with GEOS; simplified with Douglas-Peucker, repaired on the
                tile grid where needed)
                and writes one layer per input into a PMTiles v3 (default) or MBTiles 1.3 package. The output is
                written to a temporary file and renamed into place only when complete. A folder input adds every
                Shapefile in it (--layer then needs a folder of one Shapefile); a GeoPackage adds each of its
                feature tables (--layer TABLE reads one). When any input is rejected nothing
                is published (exit 65) unless --allow-partial is given; then the other layers are written and the
                metadata key kartpack_missing_layers lists the missing ones.
                """,
            options: options,
            footer: "See docs/convert.md for the pipeline, the tile limits strategy and the report format.")
    }

    var convert: ConvertOptions
    /// `--plan`/`--shard`: this run builds one shard of a plan (the other fields are unused).
    var shardRequest: ShardRequest?
    let reportPath: String?
    let quiet: Bool
    let stylePath: String?
    let policy: InputErrorPolicy

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        if p.value("plan") != nil || p.value("shard") != nil {
            shardRequest = try ShardRequest(p, arguments: arguments)
            convert = ConvertOptions(inputs: [], output: "", format: .pmtiles)
            (reportPath, quiet, stylePath, policy) = (nil, false, nil, .fail)
            return
        }
        guard !p.positionals.isEmpty else { throw UsageError(message: "convert needs at least one INPUT") }
        let layers = p.values("layer")
        guard layers.count <= p.positionals.count else {
            throw UsageError(message: "\(layers.count) --layer names for \(p.positionals.count) inputs")
        }
        for (i, name) in layers.enumerated() where name.isEmpty || layers[..<i].contains(name) {
            throw UsageError(message: "layer name '\(name)' is empty or given twice")
        }
        let crs = p.value("source-crs")
        let encoding = p.value("encoding")
        let ids = p.values("id-field")
        guard ids.count <= 1 || ids.count == p.positionals.count else {
            throw UsageError(
                message: "\(ids.count) --id-field names for \(p.positionals.count) inputs: give one for every input, "
                    + "or one per input in order")
        }
        let inputs = p.positionals.enumerated().map { i, path in
            var input = ConvertInput(
                path: path, layerName: i < layers.count ? layers[i] : nil, sourceCRS: crs, encoding: encoding)
            if ids.count > 1 { input.idField = ids[i] }
            return input
        }
        var convert = try PackageOptions.options(p, inputs: inputs)
        // Per-input ids: each input's own field, no shared default.
        if ids.count > 1 { convert.idField = nil }
        self.convert = convert
        reportPath = p.value("report")
        quiet = p.flag("quiet")
        stylePath = p.value("style")
        policy = PackageOptions.policy(p)
    }

    func run() throws -> ExitCode {
        if let shardRequest { return try shardRequest.run() }
        try PackageOptions.checkSourceCRS(convert.inputs.first?.sourceCRS)
        // A missing input is known before any work: exit 66 and touch nothing.
        let missing = convert.inputs.map(\.path).filter { !FileManager.default.fileExists(atPath: $0) }
        if !missing.isEmpty {
            for m in missing { Console.error("\(m): no such file or folder") }
            return .noInput
        }
        // So is a folder without any Shapefile (exit 66, as documented for no_shapefile).
        for input in convert.inputs where !GeoPackageFile.isGeoPackagePath(input.path) {
            do throws(ShapefileError) {
                _ = try ShapefileLocator.shapefiles(at: input.path)
            } catch  where error.code == .noShapefile {
                Console.error(error.description)
                return .noInput
            } catch {}
        }
        var clipInputs: [OutputCollision.Role] = []
        guard RunGuard.checkClip(convert.clip, inputs: &clipInputs) else { return .noInput }
        var convert = self.convert
        try PackageOptions.loadStyle(stylePath, into: &convert, quiet: quiet)
        var inputs = RunGuard.shapefileInputs(convert.inputs.map(\.path))
        inputs += clipInputs
        if let stylePath { inputs.append(OutputCollision.Role(stylePath, as: "stylesheet")) }
        inputs += (convert.style?.referencedFiles ?? []).map { OutputCollision.Role($0, as: "icon") }
        var outputs = [OutputCollision.Role(convert.output, as: "output package")]
        if let reportPath { outputs.append(OutputCollision.Role(reportPath, as: "--report")) }
        try RunGuard.check(
            outputs: outputs,
            inputs: inputs + [
                OutputCollision.Role(RunLock.lockPath(forOutput: convert.output), as: "output's lock file")
            ])
        RunGuard.sweep(smallOutputs: reportPath.map { [$0] } ?? [])
        let signals = PackageOptions.signalTrap()
        defer { signals.uninstall() }
        // Two runs writing one package take turns (exit 75), as `run` does.
        let lock = try RunGuard.lock(
            output: convert.output, temporaryDirectory: convert.temporaryDirectory, scratch: convert.scratchDirectory)
        defer { lock.release() }
        let result: StagedConversionResult
        do {
            result = try DiagnosticTail.around(PackageOptions.sink(quiet: quiet), quiet: quiet) { sink in
                try StagedConversion(options: convert, policy: policy).run(
                    diagnostics: sink, progress: ProgressReporter.forStandardError(enabled: !quiet),
                    isCancelled: { signals.cancelled })
            }
        } catch PipelineError.nothingToWrite(let reasons, let failed) where !signals.cancelled {
            // Nothing is published, but the report still says why.
            if let reportPath, !PackageOptions.writeReport(failed, to: reportPath) { return .ioError }
            Console.error("nothing to write: " + reasons.joined(separator: "; "))
            return PackageOptions.environmentFailure(in: failed) ?? .dataError
        } catch {
            // A signal wins over whatever the interrupted work threw on its way out.
            if signals.cancelled {
                Console.error("interrupted; nothing was published")
                return signals.exitCode ?? .interrupted
            }
            throw error
        }
        let report = result.report
        PackageOptions.printFindings(result.findings, quiet: quiet)
        if !result.published {
            if let reportPath, !PackageOptions.writeReport(report, to: reportPath) { return .ioError }
            Console.error("nothing was published; \(convert.output) is untouched")
            return result.exitCode
        }
        if let reportPath, !PackageOptions.writeReport(report, to: reportPath) { return .ioError }
        if !quiet { Console.out(ConvertSummary.text(report), terminator: "") }
        return PackageOptions.environmentFailure(in: report) ?? ExitCode(rawValue: report.exitCode) ?? .software
    }
}
