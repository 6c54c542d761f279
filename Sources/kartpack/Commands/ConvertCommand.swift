import Foundation
import KartpackCore
import Pipeline

/// `kartpack convert`: Shapefiles → a PMTiles or MBTiles vector-tile package.
struct ConvertCommand: Command {
    static let name = "convert"
    static let summary = "turn Shapefiles into a PMTiles or MBTiles vector-tile package"
    static let options: [OptionSpec] = [
        OptionSpec(name: "output", kind: .value, help: "output package (.pmtiles or .mbtiles)", valueName: "OUT", short: "o"),
        OptionSpec(name: "min-zoom", kind: .value, help: "lowest zoom level (default 0)", valueName: "N"),
        OptionSpec(name: "max-zoom", kind: .value, help: "highest zoom level (default 14)", valueName: "N"),
        OptionSpec(name: "layer", kind: .repeatable, help: "output layer name of the n-th input (repeat per input; default: file name)", valueName: "NAME"),
        OptionSpec(name: "source-crs", kind: .value, help: "CRS of the inputs instead of their .prj (e.g. EPSG:3006)", valueName: "CRS"),
        OptionSpec(name: "encoding", kind: .value, help: "attribute encoding; overrides .cpg and the DBF code page", valueName: "NAME"),
        OptionSpec(name: "simplify", kind: .value, help: "simplification tolerance in tile pixels of the 4096 grid (default 1)", valueName: "PIXELS"),
        OptionSpec(name: "buffer", kind: .value, help: "clip buffer around tiles in tile pixels of the 4096 grid (default 80)", valueName: "PIXELS"),
        OptionSpec(name: "threads", kind: .value, help: "worker threads (default: the number of cores)", valueName: "N"),
        OptionSpec(name: "id-field", kind: .value, help: "integer attribute to use as feature id (default: record number)", valueName: "FIELD"),
        OptionSpec(name: "max-tile-bytes", kind: .value, help: "largest compressed tile (default 500000)", valueName: "BYTES"),
        OptionSpec(name: "max-tile-features", kind: .value, help: "most features per tile (default 200000)", valueName: "N"),
        OptionSpec(name: "name", kind: .value, help: "package name (default: output file name)", valueName: "TEXT"),
        OptionSpec(name: "description", kind: .value, help: "package description", valueName: "TEXT"),
        OptionSpec(name: "attribution", kind: .value, help: "package attribution", valueName: "TEXT"),
        OptionSpec(name: "style", kind: .value, help: "stylesheet: class names, zoom ranges, layers, kept attributes", valueName: "STYLE.kss"),
        OptionSpec(name: "report", kind: .value, help: "write the run report as JSON", valueName: "FILE.json"),
        OptionSpec(name: "temp-dir", kind: .value, help: "folder for temporary files (default: the output's folder)", valueName: "DIR"),
        OptionSpec(name: "force", kind: .flag, help: "replace an existing output"),
        OptionSpec(name: "quiet", kind: .flag, help: "no progress line and no summary"),
    ]
    static var help: String {
        helpText(
            usage: "kartpack convert INPUT.shp [INPUT2.shp ...] -o OUT.pmtiles|OUT.mbtiles [options]",
            summary: """
                Reprojects each input to Web Mercator, cuts it into MVT tiles for every zoom (simplified with
                GEOS, clipped to each tile plus a buffer, repaired where needed) and writes one layer per input
                into a PMTiles v3 (default) or MBTiles 1.3 package. The output is written to a temporary file and
                renamed into place only when complete. A folder input adds every Shapefile in it.
                """,
            options: options,
            footer: "See docs/convert.md for the pipeline, the tile limits strategy and the report format.")
    }

    var convert: ConvertOptions
    let reportPath: String?
    let quiet: Bool
    let stylePath: String?

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        guard !p.positionals.isEmpty else { throw UsageError(message: "convert needs at least one INPUT") }
        guard let output = p.value("output") else { throw UsageError(message: "convert needs -o OUT.pmtiles or OUT.mbtiles") }
        guard let format = PackageFormat.from(path: output) else {
            throw UsageError(message: "output '\(output)' must end in .pmtiles or .mbtiles")
        }
        let layers = p.values("layer")
        guard layers.count <= p.positionals.count else {
            throw UsageError(message: "\(layers.count) --layer names for \(p.positionals.count) inputs")
        }
        for (i, name) in layers.enumerated() where name.isEmpty || layers[..<i].contains(name) {
            throw UsageError(message: "layer name '\(name)' is empty or given twice")
        }
        let crs = p.value("source-crs")
        let encoding = p.value("encoding")
        let inputs = p.positionals.enumerated().map { i, path in
            ConvertInput(path: path, layerName: i < layers.count ? layers[i] : nil, sourceCRS: crs, encoding: encoding)
        }
        var o = ConvertOptions(inputs: inputs, output: output, format: format)
        o.minZoom = try p.int("min-zoom", in: 0...24) ?? 0
        o.maxZoom = try p.int("max-zoom", in: 0...24) ?? 14
        guard o.minZoom <= o.maxZoom else {
            throw UsageError(message: "--min-zoom \(o.minZoom) is above --max-zoom \(o.maxZoom)")
        }
        o.simplify = try p.double("simplify", in: 0...1000) ?? 1
        o.buffer = try p.double("buffer", in: 0...2048) ?? 80
        o.threads = try p.int("threads", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
        o.idField = p.value("id-field")
        o.maxTileBytes = try p.int("max-tile-bytes", in: 1024...1_000_000_000) ?? 500_000
        o.maxTileFeatures = try p.int("max-tile-features", in: 1...100_000_000) ?? 200_000
        o.name = p.value("name")
        o.description = p.value("description")
        o.attribution = p.value("attribution")
        o.temporaryDirectory = p.value("temp-dir")
        o.force = p.flag("force")
        convert = o
        reportPath = p.value("report")
        quiet = p.flag("quiet")
        stylePath = p.value("style")
    }

    func run() throws -> ExitCode {
        // A missing input is known before any work: exit 66 and touch nothing.
        let missing = convert.inputs.map(\.path).filter { !FileManager.default.fileExists(atPath: $0) }
        if !missing.isEmpty {
            for m in missing { Console.error("\(m): no such file or folder") }
            return .noInput
        }
        let quiet = self.quiet
        var convert = self.convert
        if let stylePath {
            let (sheet, warnings) = try StyleLoader.load(path: stylePath)
            if !quiet { for w in warnings { Console.error(w.description) } }
            convert.style = sheet
        }
        let sink = DiagnosticSink(sampleLimit: 20) { d in
            // Notes (repairs) go to the report only; warnings and errors are shown.
            if d.severity == .error || (!quiet && d.severity == .warning) {
                Console.error("\(d.severity.rawValue): \(d.formatted)")
            }
        }
        let converter = Converter(options: convert, diagnostics: sink, progress: ProgressReporter.forStandardError(enabled: !quiet))
        let report: ConvertReport
        do {
            report = try converter.run()
        } catch PipelineError.nothingToWrite(let reasons, let failed) {
            // Nothing is published, but the report still says why.
            if let reportPath, !writeReport(failed, to: reportPath) { return .ioError }
            Console.error("nothing to write: " + reasons.joined(separator: "; "))
            return .dataError
        }
        if let reportPath, !writeReport(report, to: reportPath) { return .ioError }
        if !quiet { Console.out(ConvertSummary.text(report), terminator: "") }
        return ExitCode(rawValue: report.exitCode) ?? .software
    }

    private func writeReport(_ report: ConvertReport, to path: String) -> Bool {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try encoder.encode(report).write(to: URL(fileURLWithPath: path))
            return true
        } catch {
            Console.error("cannot write report \(path): \(error.localizedDescription)")
            return false
        }
    }
}
