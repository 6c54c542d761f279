import Foundation
import KartpackCore
import KartpackJSON
import TileArchive

/// A sprite sheet at one pixel ratio: the images packed in rows (first-use order, rows of at most 8 images) and
/// the index MapLibre reads (`{name: {x, y, width, height, pixelRatio}}`, names sorted).
public struct SpriteSheet: Sendable {
    /// The pixel ratio (1 for `sprite.png`, 2 for `sprite@2x.png`).
    public let pixelRatio: Int
    /// The packed image.
    public let image: RGBAImage
    /// The index as JSON.
    public let index: JSONValue

    /// Packs `images` drawn at `pixelRatio`. An empty list gives a 1×1 transparent sheet with an empty index.
    /// - Throws: `.badRequest` when an SVG icon cannot be read or drawn.
    public init(images: [GeneratedSpriteImage], pixelRatio: Int) throws(MapStyleError) {
        let ratio = max(1, pixelRatio)
        self.pixelRatio = ratio
        var unique: [GeneratedSpriteImage] = []
        for i in images where !unique.contains(where: { $0.name == i.name }) { unique.append(i) }
        var drawn: [RGBAImage] = []
        for img in unique { drawn.append(try SpriteSheet.draw(img, pixelRatio: ratio)) }
        var positions: [(x: Int, y: Int)] = []
        var x = 0
        var y = 0
        var rowHeight = 0
        var width = 1
        for (i, d) in drawn.enumerated() {
            if i > 0 && i % 8 == 0 {
                y += rowHeight
                x = 0
                rowHeight = 0
            }
            positions.append((x, y))
            x += d.width
            rowHeight = max(rowHeight, d.height)
            width = max(width, x)
        }
        var sheet = RGBAImage(width: width, height: max(1, y + rowHeight))
        var entries: [(key: String, value: JSONValue)] = []
        for (i, img) in unique.enumerated() {
            let d = drawn[i]
            sheet.place(d, x: positions[i].x, y: positions[i].y)
            entries.append(
                (
                    img.name,
                    .object([
                        ("height", .int(Int64(d.height))), ("pixelRatio", .int(Int64(ratio))),
                        ("width", .int(Int64(d.width))), ("x", .int(Int64(positions[i].x))),
                        ("y", .int(Int64(positions[i].y))),
                    ])
                ))
        }
        entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        image = sheet
        index = .object(entries)
    }

    /// One image at a pixel ratio: patterns and symbols with Kartpack's rasteriser, SVG files with librsvg.
    public static func draw(_ image: GeneratedSpriteImage, pixelRatio ratio: Int) throws(MapStyleError) -> RGBAImage {
        switch image.shape {
        case .pattern(let spec): return PatternRaster.draw(spec, pixelRatio: ratio)
        case .symbol(let symbol, let color): return symbol.raster(color: color, pixelRatio: ratio)
        case .svg(let path): return try SVGIcon.raster(path: path, side: MapSymbol.side * ratio)
        }
    }

    /// The sheet as PNG bytes.
    public func png() throws(MapStyleError) -> [UInt8] { try PNGWriter.encode(image) }

    /// The index as pretty JSON text.
    public var indexText: String { StyleJSON.pretty(index) }

    /// Writes `BASE.json`, `BASE.png`, `BASE@2x.json` and `BASE@2x.png` for `images`; returns the paths written.
    /// - Parameter basePath: the path without extension, e.g. `out/sprite`.
    public static func write(images: [GeneratedSpriteImage], basePath: String) throws(MapStyleError) -> [String] {
        var written: [String] = []
        for ratio in [1, 2] {
            let sheet = try SpriteSheet(images: images, pixelRatio: ratio)
            let suffix = ratio == 1 ? "" : "@\(ratio)x"
            let json = basePath + suffix + ".json"
            let png = basePath + suffix + ".png"
            try FileOutput.write(Array(sheet.indexText.utf8), to: json)
            try FileOutput.write(try sheet.png(), to: png)
            written += [json, png]
        }
        return written
    }
}

/// Writes whole files atomically (a temporary file renamed into place); a FIFO, device, folder or symbolic link at
/// the path is refused, never written through (`RegularFile`).
enum FileOutput {
    static func write(_ bytes: [UInt8], to path: String) throws(MapStyleError) {
        do throws(FileAccessError) {
            try RegularFile.write(bytes, to: path)
        } catch {
            throw .cannotWrite(path: path, reason: error.reason)
        }
    }
}
