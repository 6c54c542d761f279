import Foundation
import KartpackCore
import MapStyle
import Nightly
import ConvertEngine
import PipelineFiles
import Styling

/// `kartpack serve DIR|PKG.pmtiles`: a local web server showing a style folder or a package in the browser viewer.
struct ServeCommand: Command {
    static let name = "serve"
    static let summary = "show a style folder or a package in a browser (local web server with a MapLibre viewer)"
    static let options: [OptionSpec] = [
        OptionSpec(name: "port", kind: .value, help: "the port (default 8080; 0 picks a free one)", valueName: "N"),
        OptionSpec(
            name: "host", kind: .value, help: "the IPv4 address to listen on (default 127.0.0.1: this machine only)",
            valueName: "ADDR"),
        OptionSpec(
            name: "style", kind: .value, help: "for a package: the stylesheet its map is drawn with (default: plain)",
            valueName: "STYLE.kss"),
    ]
    static var help: String {
        helpText(
            usage: "kartpack serve DIR|PKG.pmtiles|PKG.mbtiles [--port N] [--host ADDR] [--style STYLE.kss]",
            summary: """
                Serves a style folder (what `kartpack style` writes) or a single package on
                http://127.0.0.1:PORT/ with a MapLibre GL JS viewer: pan and zoom, a layer list, tile boundaries on
                demand, and the attributes and class of a clicked feature. PMTiles are read by HTTP range requests,
                a package's tiles are also served at /tiles/Z/X/Y.pbf (how an MBTiles package is shown);
                style files are handed out with their URLs made absolute. A package is drawn with --style, else one
                plain look per layer. The viewer's MapLibre files are vendored at install time
                (scripts/bootstrap.sh): nothing is fetched from the network. GET and HEAD only, no file outside DIR;
                Ctrl-C (SIGINT) or SIGTERM stops it (exit 130 / 143).
                """,
            options: options, footer: "See docs/serve.md.")
    }

    let target: String
    let port: Int
    let host: String
    let sheetPath: String?

    init(arguments: [String]) throws(UsageError) {
        let p = try ParsedArguments(arguments, options: Self.options)
        guard p.positionals.count == 1 else { throw UsageError(message: "serve needs one folder or .pmtiles package") }
        target = p.positionals[0]
        port = try p.int("port", in: 0...65535) ?? 8080
        host = p.value("host") ?? "127.0.0.1"
        sheetPath = p.value("style")
    }

    func run() throws -> ExitCode {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target, isDirectory: &isDir) else {
            Console.error("\(target): no such file or folder")
            return .noInput
        }
        if isDir.boolValue, sheetPath != nil {
            Console.error("--style is for a package; a folder is served with its own style")
            return .usage
        }
        let library = ViewerLibrary.find()
        var scratch: String?
        defer { if let scratch { try? FileManager.default.removeItem(atPath: scratch) } }
        var site: ServedSite
        if isDir.boolValue {
            site = ServedSite(root: target)
        } else {
            let lower = target.lowercased()
            guard lower.hasSuffix(".pmtiles") || lower.hasSuffix(".mbtiles") else {
                Console.error("\(target): serve shows a .pmtiles or .mbtiles package, or a style folder")
                return .usage
            }
            let folder = try Self.scratchFolder()
            scratch = folder
            site = try packageSite(folder: folder, library: library)
        }
        if !isDir.boolValue || !FileManager.default.fileExists(atPath: site.root + "/index.html") {
            site.pages["/index.html"] = Array(ViewerPage.html(styleName: "style.json").utf8)
        }
        site.pages["/viewer/" + ViewerPage.scriptName] = Array(ViewerPage.script.utf8)
        let bundled = ViewerPage.libraryFiles.allSatisfy {
            FileManager.default.fileExists(atPath: site.root + "/viewer/" + $0)
        }
        if !bundled {
            guard let library else {
                Console.error("error: \(ViewerLibrary.missingMessage)")
                return .unavailable
            }
            site.library = library
        }
        let trap = SignalTrap(signals: [SIGINT, SIGTERM])
        defer { trap.remove() }
        let server: LocalHTTPServer
        do {
            server = try LocalHTTPServer(site: site, host: host, port: port)
        } catch {
            Console.error("error: \(error.description)")
            return .unavailable
        }
        trap.addCleanup { server.stop() }
        Console.out("serving \(target) at http://\(host):\(server.port)/ (open it in a browser; Ctrl-C stops)")
        server.run()
        return trap.exitCode ?? .success
    }

    /// A style folder for the package in `folder`: the style (from --style, else plain) whose source is the
    /// package, mounted at `/NAME.pmtiles` (read by range) and served tile by tile at `/tiles/Z/X/Y.pbf` (the
    /// source of an MBTiles package).
    private func packageSite(folder: String, library: String?) throws -> ServedSite {
        let sheet: Stylesheet
        if let sheetPath {
            let (loaded, warnings) = try StyleLoader.load(path: sheetPath)
            for w in warnings { Console.error(w.description) }
            sheet = loaded
        } else {
            sheet = Stylesheet(file: "(plain)", rules: [], examples: [])
        }
        let name = (target as NSString).lastPathComponent
        var options = StyleExportOptions()
        // PMTiles by range requests on the file; MBTiles (which no browser reads) tile by tile from /tiles/.
        if name.lowercased().hasSuffix(".mbtiles") {
            options.tilesURL = "tiles/{z}/{x}/{y}.pbf"
        } else {
            options.sourceURL = "pmtiles://" + StyleURLs.encoded(name)
        }
        options.viewerLibrary = library
        let result = try StyleExport.write(
            sheet: sheet, packagePath: target, stylePath: folder + "/style.json", options: options)
        for w in result.warnings where sheetPath != nil { Console.error("warning: \(w)") }
        var site = ServedSite(root: folder)
        let real = RegularFile.realPath(target) ?? target
        site.mounts["/" + name] = real
        site.tilePackage = real
        return site
    }

    /// A fresh private folder under $TMPDIR.
    static func scratchFolder() throws -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/kartpack-serve-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw PipelineError.badOutput(
                path: base, reason: "cannot make a scratch folder: \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }
}
