import Foundation
public import Styling

/// What `StyleExport.write` produced.
public struct StyleExportResult: Sendable {
    /// The style file.
    public var stylePath: String
    /// Every file written, the style first, then `sprite.json`, `sprite.png`, `sprite@2x.json`, `sprite@2x.png`
    /// when the style uses patterns or icons.
    public var files: [String]
    /// The number of style layers.
    public var layerCount: Int
    /// The source URL written.
    public var sourceURL: String
    /// Planning warnings (classes drawn with defaults, empty zoom ranges, package metadata problems).
    public var warnings: [String]
    /// What `MapLibreStyleValidator` found in the written style and sprite index (empty when valid).
    public var issues: [StyleIssue]
}

/// Writes a client style for a package: `style.json` plus the sprite next to it — the engine of
/// `kartpack style STYLE.kss --package OUT.pmtiles -o style.json [--url URL]`.
public enum StyleExport {
    /// Reads the package's metadata, builds the style and writes it with its sprite (as `sprite*.json|png` in the
    /// style's folder), then validates what was written.
    /// - Parameters:
    ///   - sourceURL: the source URL; nil writes `pmtiles://NAME` / `mbtiles://NAME` with the package's path
    ///     relative to the style's folder when the package lies inside it, else its absolute path.
    ///   - spriteURL: the `sprite` URL; nil writes `sprite` (beside the style). Clients that resolve URLs against
    ///     the page rather than the style need an absolute URL here.
    /// - Throws: `.cannotOpenPackage` / `.badPackage` for the package, `.cannotWrite` for the outputs.
    public static func write(
        sheet: Stylesheet, packagePath: String, stylePath: String, sourceURL: String? = nil, spriteURL: String? = nil,
        options: MapLibreStyleOptions = MapLibreStyleOptions()
    ) throws(MapStyleError) -> StyleExportResult {
        let info = try PackageInfo.read(path: packagePath)
        let url =
            sourceURL
            ?? MapLibreStyle.sourceURL(package: info, path: relativePath(of: packagePath, from: stylePath))
        let doc = MapLibreStyle.document(
            sheet: sheet, package: info, sourceURL: url, spriteURL: spriteURL, options: options)
        let text = doc.text
        var files: [String] = []
        var indexText: String?
        if !doc.spriteImages.isEmpty {
            let folder = (stylePath as NSString).deletingLastPathComponent
            let base = folder.isEmpty ? "sprite" : (folder as NSString).appendingPathComponent("sprite")
            files += try SpriteSheet.write(images: doc.spriteImages, basePath: base)
            indexText = SpriteSheet(images: doc.spriteImages, pixelRatio: 1).indexText
        }
        try FileOutput.write(Array(text.utf8), to: stylePath)
        files.insert(stylePath, at: 0)
        let issues = MapLibreStyleValidator.validate(text: text, spriteIndexText: indexText)
        return StyleExportResult(
            stylePath: stylePath, files: files, layerCount: doc.plan.layers.count, sourceURL: url,
            warnings: doc.warnings, issues: issues)
    }

    /// `package` relative to the folder of `style` when it lies inside that folder, else its absolute path.
    static func relativePath(of package: String, from style: String) -> String {
        let pkg = URL(fileURLWithPath: package).standardizedFileURL.path
        let dir = URL(fileURLWithPath: style).standardizedFileURL.deletingLastPathComponent().path
        let prefix = dir.hasSuffix("/") ? dir : dir + "/"
        if pkg.hasPrefix(prefix) { return String(pkg.dropFirst(prefix.count)) }
        return pkg
    }
}
