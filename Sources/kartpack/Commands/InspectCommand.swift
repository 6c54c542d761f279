import Foundation
import KartpackCore
import Inspection
/// `kartpack inspect PATH`: describes Shapefiles (and, later, tile packages).
struct InspectCommand: Command {
    static let name = "inspect"
    static let summary = "describe a Shapefile, a folder of Shapefiles or a tile package"
    static let options: [OptionSpec] = [
        OptionSpec(name: "format", kind: .value, help: "text (default) or json", valueName: "text|json"),
        OptionSpec(
            name: "source-crs", kind: .value,
            help: "CRS to use instead of the .prj: EPSG:3006 (or 3006), a PROJ string, WKT or an exact CRS name",
            valueName: "CRS"),
        OptionSpec(
            name: "encoding", kind: .value, help: "attribute encoding; overrides .cpg and the DBF code page",
            valueName: "NAME"),
        OptionSpec(
            name: "features", kind: .flag,
            help:
                "Shapefiles, with --format json: also every feature as read (record, attributes, GeoJSON geometry in "
                + "the layer's CRS) and every skipped record with its reason"
        ),
        OptionSpec(name: "tile", kind: .value, help: "packages: decode one tile", valueName: "Z/X/Y"),
        OptionSpec(
            name: "wgs84", kind: .flag,
            help: "with --tile: geometry in longitude/latitude instead of tile "
                + "coordinates"),
    ]
    static var help: String {
        helpText(
            usage: """
                kartpack inspect PATH [--format text|json [--features]] [--source-crs CRS] [--encoding NAME]
                       kartpack inspect OUT.pmtiles|OUT.mbtiles [--format text|json] [--tile Z/X/Y [--wgs84]]
                """,
            summary: """
                For a .shp (or each .shp in a folder) or each feature table of a .gpkg: reads every record and
                reports geometry type, record, null and deleted counts, bounds (native and WGS84), CRS, encoding,
                fields and warnings.
                For a package: header and metadata, layers with fields, tiles and bytes per zoom, largest tiles;
                --tile decodes one tile (features, properties, geometry).
                """,
            options: options,
            footer: "The JSON format is documented in docs/inspect.md.")
    }

    let path: String
    let format: String
    let options: InspectOptions
    let tile: TileCoordinate?
    let wgs84: Bool

    init(arguments: [String]) throws(UsageError) {
        let parsed = try ParsedArguments(arguments, options: Self.options)
        guard parsed.positionals.count == 1 else {
            throw UsageError(message: "inspect needs exactly one PATH")
        }
        path = parsed.positionals[0]
        format = try parsed.choice("format", ["text", "json"], default: "text")
        options = InspectOptions(
            sourceCRS: parsed.value("source-crs"), encoding: parsed.value("encoding"), features: parsed.flag("features")
        )
        wgs84 = parsed.flag("wgs84")
        if let t = parsed.value("tile") {
            guard let c = TileCoordinate.parse(t), c.isValid else {
                throw UsageError(message: "--tile needs Z/X/Y inside the tile grid, got '\(t)'")
            }
            tile = c
        } else {
            tile = nil
        }
        let isPackage = PackageInspector.isPackage(path)
        if !isPackage && (tile != nil || wgs84) {
            throw UsageError(message: "--tile and --wgs84 apply to .pmtiles and .mbtiles packages only")
        }
        if isPackage && (options.sourceCRS != nil || options.encoding != nil) {
            throw UsageError(message: "--source-crs and --encoding apply to Shapefiles only")
        }
        if wgs84 && tile == nil { throw UsageError(message: "--wgs84 needs --tile") }
        if options.features && (isPackage || format != "json") {
            throw UsageError(message: "--features applies to Shapefiles with --format json")
        }
    }

    func run() throws -> ExitCode {
        if PackageInspector.isPackage(path) {
            if let tile {
                let t = try PackageInspector.inspectTile(path: path, tile: tile, wgs84: wgs84)
                Console.out(
                    format == "json" ? try InspectRendering.json(t) : InspectRendering.text(t),
                    terminator: format == "json" ? "\n" : "")
            } else {
                let p = try PackageInspector.inspect(path: path)
                Console.out(
                    format == "json" ? try InspectRendering.json(p) : InspectRendering.text(p),
                    terminator: format == "json" ? "\n" : "")
            }
            return .success
        }
        // A --source-crs PROJ cannot use is a bad command line (64), as for convert, not a rejected layer.
        try PackageOptions.checkSourceCRS(options.sourceCRS)
        let report = try ShapefileInspector.inspect(path: path, options: options)
        if format == "json" {
            Console.out(try InspectRendering.json(report))
        } else {
            Console.out(InspectRendering.text(report), terminator: "")
        }
        return ExitCode(rawValue: report.exitCode) ?? .software
    }
}
