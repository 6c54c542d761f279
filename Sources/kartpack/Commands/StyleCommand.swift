import Foundation
import KartpackCore
import MapStyle
import Pipeline

/// `kartpack style`: the client's MapLibre style (and pattern sprites) from the same stylesheet.
struct StyleCommand: Command {
    static let name = "style"
    static let summary = "write a MapLibre GL style (+ sprites) for a package from a stylesheet"
    static let options: [OptionSpec] = [
        OptionSpec(name: "package", kind: .value, help: "the package the style draws (.pmtiles or .mbtiles)", valueName: "OUT.pmtiles"),
        OptionSpec(name: "output", kind: .value, help: "the style file to write; sprites go next to it", valueName: "style.json", short: "o"),
        OptionSpec(name: "url", kind: .value, help: "source URL written into the style (default pmtiles:// or mbtiles:// + relative path)", valueName: "URL"),
        OptionSpec(name: "sprite-url", kind: .value, help: "sprite URL written into the style (default: sprite)", valueName: "URL"),
    ]
    static var help: String {
        helpText(
            usage: "kartpack style STYLE.kss --package OUT.pmtiles -o style.json [--url URL] [--sprite-url URL]",
            summary: """
                Builds a MapLibre GL style (version 8) whose source is the package: fill, line, circle and symbol layers
                per class with ["==", ["get", "class"], NAME] filters, the sheet's colours, widths, dash arrays, zoom
                ranges and labels. Fill patterns become a generated sprite (sprite.json/.png and @2x) next to the style.
                The written style is checked against the style-spec rules before the command succeeds.
                """,
            options: options, footer: "See docs/styles.md.")
    }

    let sheetPath: String
    let package: String
    let output: String
    let url: String?
    let spriteURL: String?

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        guard p.positionals.count == 1 else { throw UsageError(message: "style needs exactly one STYLE.kss") }
        sheetPath = p.positionals[0]
        guard let package = p.value("package") else { throw UsageError(message: "style needs --package OUT.pmtiles") }
        guard let output = p.value("output") else { throw UsageError(message: "style needs -o style.json") }
        self.package = package
        self.output = output
        url = p.value("url")
        spriteURL = p.value("sprite-url")
    }

    func run() throws -> ExitCode {
        let (sheet, warnings) = try StyleLoader.load(path: sheetPath)
        for w in warnings { Console.error(w.description) }
        let result = try StyleExport.write(
            sheet: sheet, packagePath: package, stylePath: output, sourceURL: url, spriteURL: spriteURL)
        for w in result.warnings { Console.error("warning: \(w)") }
        for issue in result.issues { Console.error("error: style check: \(issue)") }
        Console.out("wrote \(result.files.joined(separator: ", ")): \(result.layerCount) style layers, source \(result.sourceURL)")
        return result.issues.isEmpty ? .success : .software
    }
}
