import Foundation
import KartpackCore
import MapStyle
import PipelineFiles
/// `kartpack preview`: an SVG (or PNG) picture of a package drawn with a stylesheet.
struct PreviewCommand: Command {
    static let name = "preview"
    static let summary = "draw a tile or an area of a package with a stylesheet as SVG (or PNG)"
    static let options: [OptionSpec] = [
        OptionSpec(name: "style", kind: .value, help: "the stylesheet", valueName: "STYLE.kss"),
        OptionSpec(name: "tile", kind: .value, help: "one tile", valueName: "Z/X/Y"),
        OptionSpec(name: "bbox", kind: .value, help: "an area in WGS84 degrees (with --zoom)", valueName: "W,S,E,N"),
        OptionSpec(name: "zoom", kind: .value, help: "zoom for --bbox", valueName: "Z"),
        OptionSpec(
            name: "output", kind: .value, help: "map.svg, or map.png (needs rsvg-convert)", valueName: "FILE",
            short: "o"),
        OptionSpec(name: "no-legend", kind: .flag, help: "leave out the legend"),
        OptionSpec(
            name: "features", kind: .value,
            help: "also write, per drawn feature, the look the sheet's cascade gives it "
                + "(JSON)", valueName: "FILE.json"),
    ]
    static var help: String {
        helpText(
            usage: "kartpack preview OUT.pmtiles --style STYLE.kss (--tile Z/X/Y | --bbox W,S,E,N --zoom Z) -o map.svg",
            summary: """
                Draws what the client will show: fills, fill patterns, strokes, dash arrays, symbols, icons and labels,
                from the decoded tiles, with the same style expressions the client evaluates, and a legend. A --bbox
                preview at --zoom Z has the scale MapLibre draws zoom Z at (512 px per tile). PNG output
                (-o map.png) uses rsvg-convert when installed. --features writes the Swift cascade's look of every
                drawn feature (class, and per draw kind the MapLibre paint values) for comparing with a client.
                """,
            options: options, footer: "See docs/styles.md.")
    }

    let package: String
    let sheetPath: String
    let area: PreviewArea
    let output: String
    let legend: Bool
    let features: String?

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        guard p.positionals.count == 1 else { throw UsageError(message: "preview needs exactly one package") }
        package = p.positionals[0]
        guard let style = p.value("style") else { throw UsageError(message: "preview needs --style STYLE.kss") }
        sheetPath = style
        guard let output = p.value("output") else { throw UsageError(message: "preview needs -o map.svg") }
        self.output = output
        legend = !p.flag("no-legend")
        features = p.value("features")
        switch (p.value("tile"), p.value("bbox")) {
        case (let t?, nil):
            guard p.value("zoom") == nil else { throw UsageError(message: "--zoom goes with --bbox, not --tile") }
            guard let c = TileCoordinate.parse(t), c.isValid else {
                throw UsageError(message: "--tile needs Z/X/Y, got '\(t)'")
            }
            area = .tile(c)
        case (nil, let b?):
            let parts = b.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard parts.count == 4, let w = parts[0], let s = parts[1], let e = parts[2], let n = parts[3],
                w < e, s < n, w >= -180, e <= 180, s >= -85.06, n <= 85.06
            else { throw UsageError(message: "--bbox needs W,S,E,N in degrees with W < E and S < N, got '\(b)'") }
            guard let z = try p.int("zoom", in: 0...24) else { throw UsageError(message: "--bbox needs --zoom Z") }
            area = .bbox(Bounds(minX: w, minY: s, maxX: e, maxY: n), zoom: z)
        default:
            throw UsageError(message: "give either --tile Z/X/Y or --bbox W,S,E,N --zoom Z")
        }
        guard output.lowercased().hasSuffix(".svg") || output.lowercased().hasSuffix(".png") else {
            throw UsageError(message: "output must end in .svg or .png")
        }
    }

    func run() throws -> ExitCode {
        let (sheet, warnings) = try StyleLoader.load(path: sheetPath)
        for w in warnings { Console.error(w.description) }
        var outputs = [OutputCollision.Role(output, as: "preview (-o)")]
        if let features { outputs.append(OutputCollision.Role(features, as: "--features")) }
        let inputs =
            [OutputCollision.Role(sheetPath, as: "stylesheet"), OutputCollision.Role(package, as: "package")]
            + sheet.referencedFiles.map { OutputCollision.Role($0, as: "icon") }
        try RunGuard.check(outputs: outputs, inputs: inputs)
        RunGuard.sweep(smallOutputs: outputs.map(\.path))
        var options = SVGPreviewOptions()
        options.legend = legend
        options.reportFeatures = features != nil
        let result = try SVGPreview.preview(package: package, sheet: sheet, area: area, options: options)
        if output.lowercased().hasSuffix(".png") {
            try SVGPreview.rasterize(svg: result.svg, to: output)
        } else {
            do {
                try RegularFile.write(result.svg, to: output)
            } catch {
                Console.error(error.description)
                return error.exitCode
            }
        }
        if let features {
            do {
                try RegularFile.write(StyleJSON.pretty(.array(result.features)), to: features)
            } catch {
                Console.error(error.description)
                return error.exitCode
            }
        }
        Console.out("wrote \(output): \(result.width)x\(result.height) px from zoom \(result.sourceZoom) tiles")
        return .success
    }
}
