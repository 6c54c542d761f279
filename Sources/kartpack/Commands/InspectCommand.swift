import Foundation
import KartpackCore
import Pipeline

/// `kartpack inspect PATH`: describes Shapefiles (and, later, tile packages).
struct InspectCommand: Command {
    static let name = "inspect"
    static let summary = "describe a Shapefile, a folder of Shapefiles or a tile package"
    static let options: [OptionSpec] = [
        OptionSpec(name: "format", kind: .value, help: "text (default) or json", valueName: "text|json"),
        OptionSpec(name: "source-crs", kind: .value, help: "CRS to use instead of the .prj (e.g. EPSG:3006)", valueName: "CRS"),
        OptionSpec(name: "encoding", kind: .value, help: "attribute encoding; overrides .cpg and the DBF code page", valueName: "NAME"),
    ]
    static var help: String {
        helpText(
            usage: "kartpack inspect PATH [--format text|json] [--source-crs CRS] [--encoding NAME]",
            summary: "Reads every record of a .shp (or of each .shp in a folder) and reports geometry type, record,\nnull and deleted counts, bounds (native and WGS84), CRS, encoding, fields and warnings.",
            options: options,
            footer: "The JSON format is documented in docs/inspect.md.")
    }

    let path: String
    let format: String
    let options: InspectOptions

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: Self.options)
        guard parsed.positionals.count == 1 else {
            throw UsageError(message: "inspect needs exactly one PATH")
        }
        path = parsed.positionals[0]
        format = try parsed.choice("format", ["text", "json"], default: "text")
        options = InspectOptions(sourceCRS: parsed.value("source-crs"), encoding: parsed.value("encoding"))
    }

    func run() throws -> ExitCode {
        let report = try ShapefileInspector.inspect(path: path, options: options)
        if format == "json" {
            Console.out(try InspectRendering.json(report))
        } else {
            Console.out(InspectRendering.text(report), terminator: "")
        }
        return ExitCode(rawValue: report.exitCode) ?? .software
    }
}
