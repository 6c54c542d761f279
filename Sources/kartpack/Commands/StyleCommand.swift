import Foundation
import KartpackCore
import MapStyle
import PipelineFiles
import Styling

/// `kartpack style`: the client's MapLibre style (and pattern sprites) from the same stylesheet.
struct StyleCommand: Command {
    static let name = "style"
    static let summary = "write a MapLibre GL style (+ sprites) for a package from a stylesheet"
    static let options: [OptionSpec] = [
        OptionSpec(
            name: "package", kind: .value, help: "the package the style draws (.pmtiles or .mbtiles)",
            valueName: "OUT.pmtiles"),
        OptionSpec(
            name: "output", kind: .value,
            help: "the style file to write; sprites and glyphs go next to it (missing folders are created)",
            valueName: "DIR/style.json", short: "o"),
        OptionSpec(
            name: "base-url", kind: .value,
            help: "the URL the style's folder is served from: sprite, glyph and PMTiles URLs become absolute under it",
            valueName: "URL"),
        OptionSpec(
            name: "url", kind: .value,
            help: "source URL written into the style (default pmtiles:// + the package's path, under --base-url)",
            valueName: "URL"),
        OptionSpec(
            name: "tiles-url", kind: .value,
            help: "a tiles URL template for the source, e.g. https://host/t/{z}/{x}/{y}.pbf (needed for MBTiles)",
            valueName: "TEMPLATE"),
        OptionSpec(
            name: "sprite-url", kind: .value,
            help: "sprite URL written into the style (default: sprite under --base-url)", valueName: "URL"),
    ]
    static var help: String {
        helpText(
            usage: """
                kartpack style STYLE.kss --package OUT.pmtiles -o DIR/style.json [--base-url URL]
                                      [--url URL | --tiles-url TEMPLATE] [--sprite-url URL]
                """,
            summary: """
                Writes an offline MapLibre GL style folder for the package: style.json (version 8) with a background
                layer, a first view fitted to the data, the package's attribution, and fill, line, circle and symbol
                layers per class whose paint values follow the sheet's cascade as MapLibre expressions; the sprite
                (sprite.json/.png and @2x: fill patterns, built-in symbols, SVG icons) and the glyphs of the label font
                for the character ranges the labels use (glyphs/FONT/START-END.pbf, from fonts-noto-core). Without
                --base-url the URLs are relative to the style file (see docs/styles.md). MBTiles packages need
                --tiles-url. The written style is checked against the style-spec rules before the command succeeds.
                Next to the style goes a viewer, index.html with viewer/ (MapLibre GL JS vendored at install time):
                any static web server, or `kartpack serve DIR`, shows the map from the folder.
                """,
            options: options, footer: "See docs/styles.md.")
    }

    let sheetPath: String
    let package: String
    let output: String
    let url: String?
    let tilesURL: String?
    let baseURL: String?
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
        tilesURL = p.value("tiles-url")
        baseURL = p.value("base-url")
        spriteURL = p.value("sprite-url")
        if url != nil && tilesURL != nil { throw UsageError(message: "give --url or --tiles-url, not both") }
        if let t = tilesURL, !(t.contains("{z}") && t.contains("{x}") && t.contains("{y}")) {
            throw UsageError(message: "--tiles-url needs {z}, {x} and {y} in it, got '\(t)'")
        }
    }

    func run() throws -> ExitCode {
        let (sheet, warnings) = try StyleLoader.load(path: sheetPath)
        for w in warnings { Console.error(w.description) }
        var options = StyleExportOptions()
        options.baseURL = baseURL
        options.sourceURL = url
        options.tilesURL = tilesURL
        options.spriteURL = spriteURL
        options.viewerLibrary = ViewerLibrary.find()
        if options.viewerLibrary == nil {
            Console.error("warning: index.html written without MapLibre: \(ViewerLibrary.missingMessage)")
        }
        let folder = RegularFile.parentPath(output)
        if let problem = Self.makeFolder(folder) {
            Console.error("error: -o \(output): \(problem)")
            return .cantCreate
        }
        try checkFiles(sheet: sheet, folder: folder)
        let result: StyleExportResult
        do {
            result = try StyleExport.write(sheet: sheet, packagePath: package, stylePath: output, options: options)
        } catch {
            if case .badRequest(let message) = error, message.contains("MBTiles") {
                Console.error("error: \(message)")
                return .usage
            }
            throw error
        }
        for w in result.warnings { Console.error("warning: \(w)") }
        for issue in result.issues { Console.error("error: style check: \(issue)") }
        let folderText = folder.isEmpty ? "." : folder
        Console.out(
            "wrote \(result.files.count) files in \(folderText) (\(result.stylePath) and its sprite, glyphs and viewer "
                + "index.html): \(result.layerCount) style layers, source \(result.sourceURL)")
        return result.issues.isEmpty ? .success : .software
    }

    /// Creates the output folder and its missing parents; a message naming the part that is in the way (a file
    /// where a folder should be) or the reason, nil when the folder exists or was made.
    static func makeFolder(_ folder: String) -> String? {
        guard !folder.isEmpty else { return nil }
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: folder, isDirectory: &isDir) {
            return isDir.boolValue ? nil : "\(folder) is a file, not a folder"
        }
        var ancestor = RegularFile.parentPath(folder)
        while !ancestor.isEmpty, ancestor != "/", !fm.fileExists(atPath: ancestor, isDirectory: &isDir) {
            ancestor = RegularFile.parentPath(ancestor)
        }
        if !ancestor.isEmpty, fm.fileExists(atPath: ancestor, isDirectory: &isDir), !isDir.boolValue {
            return "cannot create the folder \(folder): \(ancestor) is a file, not a folder"
        }
        if mkdirs(folder) != 0 {
            return "cannot create the folder \(folder): \(String(cString: strerror(errno)))"
        }
        return nil
    }

    /// `mkdir -p`: 0, or -1 with `errno` set.
    private static func mkdirs(_ path: String) -> Int32 {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) { return isDir.boolValue ? 0 : -1 }
        let parent = RegularFile.parentPath(path)
        if !parent.isEmpty, parent != path, mkdirs(parent) != 0 { return -1 }
        return mkdir(path, 0o755) == 0 || errno == EEXIST ? 0 : -1
    }

    /// The style and its sprite files must not replace the sheet, its icons or the package (exit 64), nor write
    /// through a FIFO or device (73); stale temporaries of killed runs are removed.
    private func checkFiles(sheet: Stylesheet, folder: String) throws {
        func inFolder(_ name: String) -> String {
            folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
        }
        let sprites = ["sprite.json", "sprite.png", "sprite@2x.json", "sprite@2x.png"].map {
            OutputCollision.Role(inFolder($0), as: "sprite file")
        }
        let viewer = [OutputCollision.Role(inFolder("index.html"), as: "viewer page")]
        let outputs = [OutputCollision.Role(output, as: "style (-o)")] + sprites + viewer
        let inputs =
            [OutputCollision.Role(sheetPath, as: "stylesheet"), OutputCollision.Role(package, as: "package")]
            + sheet.referencedFiles.map { OutputCollision.Role($0, as: "icon") }
        try RunGuard.check(outputs: outputs, inputs: inputs)
        RunGuard.sweep(smallOutputs: outputs.map(\.path))
    }
}
