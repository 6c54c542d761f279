import Foundation
import KartpackJSON
public import TileArchive

/// A sprite sheet at one pixel ratio: the images packed on a grid (first-use order, row by row) and the index
/// MapLibre reads (`{name: {x, y, width, height, pixelRatio}}`, names sorted).
public struct SpriteSheet: Sendable {
    /// The pixel ratio (1 for `sprite.png`, 2 for `sprite@2x.png`).
    public let pixelRatio: Int
    /// The packed image.
    public let image: RGBAImage
    /// The index as JSON.
    public let index: JSONValue

    /// Packs `images` drawn at `pixelRatio`. An empty list gives a 1×1 transparent sheet with an empty index.
    public init(images: [SpriteImage], pixelRatio: Int) {
        let ratio = max(1, pixelRatio)
        self.pixelRatio = ratio
        var unique: [SpriteImage] = []
        for i in images where !unique.contains(where: { $0.name == i.name }) { unique.append(i) }
        let cell = SpriteImage.size * ratio
        let columns = max(1, Int(Double(unique.count).squareRoot().rounded(.up)))
        let rows = max(1, (unique.count + columns - 1) / columns)
        var sheet = RGBAImage(width: unique.isEmpty ? 1 : columns * cell, height: unique.isEmpty ? 1 : rows * cell)
        var entries: [(key: String, value: JSONValue)] = []
        for (i, img) in unique.enumerated() {
            let x = (i % columns) * cell
            let y = (i / columns) * cell
            sheet.place(PatternRaster.draw(img, pixelRatio: ratio), x: x, y: y)
            entries.append(
                (
                    img.name,
                    .object([
                        ("height", .int(Int64(cell))), ("pixelRatio", .int(Int64(ratio))), ("width", .int(Int64(cell))),
                        ("x", .int(Int64(x))), ("y", .int(Int64(y))),
                    ])
                ))
        }
        entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        image = sheet
        index = .object(entries)
    }

    /// The sheet as PNG bytes.
    public func png() throws(MapStyleError) -> [UInt8] { try PNGWriter.encode(image) }

    /// The index as pretty JSON text.
    public var indexText: String { StyleJSON.pretty(index) }

    /// Writes `BASE.json`, `BASE.png`, `BASE@2x.json` and `BASE@2x.png` for `images`; returns the paths written.
    /// - Parameter basePath: the path without extension, e.g. `out/sprite`.
    public static func write(images: [SpriteImage], basePath: String) throws(MapStyleError) -> [String] {
        var written: [String] = []
        for ratio in [1, 2] {
            let sheet = SpriteSheet(images: images, pixelRatio: ratio)
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

/// Writes whole files atomically (a temporary file renamed into place).
enum FileOutput {
    static func write(_ bytes: [UInt8], to path: String) throws(MapStyleError) {
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .cannotWrite(path: path, reason: error.localizedDescription)
        }
    }
}
