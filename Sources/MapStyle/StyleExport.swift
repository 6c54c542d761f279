import Foundation
import KartpackCore
public import Styling

/// Where `StyleExport` points the client.
public struct StyleExportOptions: Sendable {
    /// The URL the style's folder is served from (`http://127.0.0.1:8080/map/`, `file:///sdcard/map/`): sprite,
    /// glyph and PMTiles URLs are written absolute under it. Nil writes them relative to the style file (see
    /// docs/styles.md for how each client resolves them).
    public var baseURL: String?
    /// The source `url` as given (overrides the PMTiles URL).
    public var sourceURL: String?
    /// A `tiles` URL template (`https://host/{z}/{x}/{y}.pbf`), required for MBTiles packages.
    public var tilesURL: String?
    /// The `sprite` URL as given (overrides the one under `baseURL`).
    public var spriteURL: String?
    /// Writes the browser viewer (`index.html`, `viewer/viewer.js`) next to the style.
    public var writeViewer = true
    /// The folder holding MapLibre GL JS and pmtiles.js (`ViewerPage.libraryFiles`), copied into `viewer/`; nil
    /// when they were not found (the viewer is written without them, and the result says so).
    public var viewerLibrary: String?
    /// Style options.
    public var style = MapLibreStyleOptions()

    /// The defaults.
    public init() {}
}

/// What `StyleExport.write` produced.
public struct StyleExportResult: Sendable {
    /// The style file.
    public var stylePath: String
    /// Every file written: the style, then the sprite files, then the glyph ranges.
    public var files: [String]
    /// The number of style layers (with the background).
    public var layerCount: Int
    /// The source URL (or tiles template) written.
    public var sourceURL: String
    /// Planning warnings.
    public var warnings: [String]
    /// What `MapLibreStyleValidator` found in the written style and sprite index (empty when valid).
    public var issues: [StyleIssue]
}

/// Writes an offline client style folder for a package — the engine of `kartpack style`: `style.json`, the
/// sprite (`sprite.json/.png`, `sprite@2x.json/.png`: patterns, symbols and SVG icons) and the glyphs of the
/// label font for the character ranges the labels' text uses (`glyphs/FONT/START-END.pbf`), all next to the style.
public enum StyleExport {
    /// Reads the package's metadata (and, for glyph ranges, the label texts in its tiles), builds the style and
    /// writes the folder, then validates what was written.
    /// - Throws: `.cannotOpenPackage` / `.badPackage` for the package, `.badRequest` for an MBTiles package
    ///   without a tiles URL or a broken icon, `.toolMissing` without the font, `.cannotWrite` for the outputs.
    public static func write(
        sheet: Stylesheet, packagePath: String, stylePath: String, options: StyleExportOptions = StyleExportOptions()
    ) throws(MapStyleError) -> StyleExportResult {
        let reader = try PackageReader(path: packagePath)
        let info = try reader.info()
        let base = options.baseURL.map { $0.hasSuffix("/") ? $0 : $0 + "/" } ?? ""
        let source: TileSourceURL
        let shown: String
        if let t = options.tilesURL {
            source = .tiles(t)
            shown = t
        } else if let u = options.sourceURL {
            source = .url(u)
            shown = u
        } else if info.format == .pmtiles {
            let rel = percentEncoded(relativePath(of: packagePath, from: stylePath))
            let u = "pmtiles://" + (base.isEmpty ? rel : resolved(rel, against: base))
            source = .url(u)
            shown = u
        } else {
            throw .badRequest(
                "\(packagePath) is MBTiles, which no MapLibre client reads directly: serve its tiles and give "
                    + "--tiles-url https://HOST/PATH/{z}/{x}/{y}.pbf (or --url for a TileJSON)")
        }
        var styleOptions = options.style
        styleOptions.glyphsURL = base + "glyphs/{fontstack}/{range}.pbf"
        let folder = RegularFile.parentPath(stylePath)
        func inFolder(_ name: String) -> String {
            folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
        }
        let doc = MapLibreStyle.document(
            sheet: sheet, package: info, source: source, spriteURL: options.spriteURL ?? base + "sprite",
            options: styleOptions)
        var files: [String] = []
        var indexText: String?
        if !doc.spriteImages.isEmpty {
            files += try SpriteSheet.write(images: doc.spriteImages, basePath: inFolder("sprite"))
            indexText = try SpriteSheet(images: doc.spriteImages, pixelRatio: 1).indexText
        }
        if doc.plan.layers.contains(where: { $0.kind == .label }) {
            let texts = try labelTexts(reader: reader, fields: doc.plan.labelFields)
            for font in styleOptions.fonts {
                files += try GlyphSet.write(
                    fontstack: font, ranges: GlyphSet.ranges(for: texts), folder: inFolder("glyphs"))
            }
        }
        let text = doc.text
        try FileOutput.write(Array(text.utf8), to: stylePath)
        files.insert(stylePath, at: 0)
        if options.writeViewer {
            files += try writeViewer(
                folder: folder, styleName: (stylePath as NSString).lastPathComponent,
                library: options.viewerLibrary)
        }
        let issues = MapLibreStyleValidator.validate(text: text, spriteIndexText: indexText)
        return StyleExportResult(
            stylePath: stylePath, files: files, layerCount: doc.plan.layers.count + 1, sourceURL: shown,
            warnings: doc.warnings, issues: issues)
    }

    /// The most tiles read for label texts; beyond it only the texts seen so far choose the glyph ranges.
    static let maxScannedTiles = 50_000

    /// Every distinct text the label fields hold in the package's tiles.
    static func labelTexts(reader: PackageReader, fields: [(layer: String, field: String)]) throws(MapStyleError)
        -> Set<String>
    {
        guard !fields.isEmpty else { return [] }
        var texts = Set<String>()
        var scanned = 0
        var failure: MapStyleError?
        try reader.forEachStoredTile { coordinate, bytes in
            scanned += 1
            do throws(MapStyleError) {
                let tile = try reader.decode(bytes, coordinate)
                for layer in tile.layers {
                    for (l, f) in fields where l == layer.name {
                        for feature in layer.features {
                            let t = StyleExpression.labelText(feature.properties[f])
                            if !t.isEmpty { texts.insert(t) }
                        }
                    }
                }
            } catch {
                failure = error
                return false
            }
            return scanned < maxScannedTiles
        }
        if let failure { throw failure }
        return texts
    }

    /// A relative path with characters URLs cannot hold percent-encoded (`/` kept).
    static func percentEncoded(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    /// `package` relative to the folder of `style`, with `../` steps when it lies outside that folder (never the
    /// build machine's absolute path: the URL must resolve wherever the folder and package are served from).
    static func relativePath(of package: String, from style: String) -> String {
        let pkg = URL(fileURLWithPath: package).standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let dir = URL(fileURLWithPath: style).standardizedFileURL.resolvingSymlinksInPath()
            .deletingLastPathComponent().pathComponents
        var common = 0
        while common < min(pkg.count - 1, dir.count), pkg[common] == dir[common] { common += 1 }
        let up = Array(repeating: "..", count: dir.count - common)
        return (up + pkg[common...]).joined(separator: "/")
    }

    /// `relative` resolved against the folder URL `base` (`../` steps applied).
    static func resolved(_ relative: String, against base: String) -> String {
        guard relative.hasPrefix("../"), let b = URL(string: base), let u = URL(string: relative, relativeTo: b)
        else { return base + relative }
        return u.absoluteString
    }
}
