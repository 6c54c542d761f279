import Foundation

/// One image of a style's sprite: where it lies in the sprite sheet and at which pixel ratio.
///
/// KartpackKit does not decode PNG: `sheet` is the whole sprite sheet (PNG bytes, shared between images, not
/// copied) and `rect` the image's pixels in it. On Apple platforms cut it with
/// `CGImage(pngDataProviderSource:…)?.cropping(to: CGRect(x: rect.x, y: rect.y, width: rect.width,
/// height: rect.height))` and draw it at `1 / pixelRatio` points per pixel.
public struct SpriteImage: Sendable, Hashable {
    /// The image's name in the sprite index (`icon-image`, `fill-pattern`).
    public var name: String
    /// Device pixels per CSS pixel: 1 for `sprite.png`, 2 for `sprite@2x.png`.
    public var pixelRatio: Double
    /// The image's pixels in the sheet.
    public var rect: (x: Int, y: Int, width: Int, height: Int)
    /// True for a signed-distance-field image (tinted by the style); Kartpack writes none.
    public var sdf: Bool
    /// The sprite sheet's PNG bytes.
    public var sheet: Data

    /// The image's size in CSS pixels (points).
    public var size: (width: Double, height: Double) {
        (Double(rect.width) / pixelRatio, Double(rect.height) / pixelRatio)
    }

    public static func == (a: SpriteImage, b: SpriteImage) -> Bool {
        a.name == b.name && a.pixelRatio == b.pixelRatio && a.rect == b.rect && a.sdf == b.sdf
            && a.sheet == b.sheet
    }

    public func hash(into h: inout Hasher) {
        h.combine(name)
        h.combine(pixelRatio)
        h.combine(rect.x)
        h.combine(rect.y)
    }
}

/// An image of the sprite at every pixel ratio the style folder has (1× and 2× for `kartpack style`).
public struct SpriteImageSet: Sendable, Hashable {
    /// The image's name.
    public var name: String
    /// The image at each pixel ratio, lowest first.
    public var images: [SpriteImage]

    /// The image for a screen `scale` (`UIScreen.scale`): the lowest ratio at least `scale`, else the highest.
    public func image(forScale scale: Double) -> SpriteImage? {
        images.first { $0.pixelRatio >= scale } ?? images.last
    }
}

/// A sprite's index (`sprite.json`) and sheet (`sprite.png`) read from a style folder.
struct SpriteSheetFile {
    var images: [String: SpriteImage]

    /// The most images a sprite index may hold, and the largest sheet read.
    static let maxImages = 100_000
    static let maxSheetBytes = 64 << 20

    /// Reads `base.json` and `base.png`.
    init(base: URL) throws(KartpackKitError) {
        let indexURL = base.appendingPathExtension("json")
        let pngURL = base.appendingPathExtension("png")
        let index = try StyleFolderFile.json(indexURL, maxBytes: 16 << 20, kind: .style)
        let sheet = try StyleFolderFile.bytes(pngURL, maxBytes: Self.maxSheetBytes)
        guard sheet.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw .invalidStyle(path: pngURL.path, reason: "not a PNG file")
        }
        let (width, height) = Self.pngSize(sheet)
        guard let members = index.objectMembers else {
            throw .invalidStyle(path: indexURL.path, reason: "the sprite index is not a JSON object")
        }
        guard members.count <= Self.maxImages else {
            throw .invalidStyle(path: indexURL.path, reason: "more than \(Self.maxImages) images")
        }
        var images: [String: SpriteImage] = [:]
        for (name, entry) in members {
            func int(_ key: String) throws(KartpackKitError) -> Int {
                guard let v = entry[key]?.intValue, v >= 0, v <= 1 << 20 else {
                    throw .invalidStyle(
                        path: indexURL.path, reason: "image \(name): \(key) is not a small whole number")
                }
                return Int(v)
            }
            let rect = (
                x: try int("x"), y: try int("y"), width: try int("width"), height: try int("height")
            )
            guard rect.x + rect.width <= width, rect.y + rect.height <= height else {
                throw .invalidStyle(
                    path: indexURL.path, reason: "image \(name) lies outside the \(width)×\(height) sheet")
            }
            let ratio = entry["pixelRatio"]?.doubleValue ?? 1
            guard ratio.isFinite, ratio > 0, ratio <= 16 else {
                throw .invalidStyle(path: indexURL.path, reason: "image \(name): bad pixelRatio")
            }
            images[name] = SpriteImage(
                name: name, pixelRatio: ratio, rect: rect, sdf: entry["sdf"] == .bool(true), sheet: sheet)
        }
        self.images = images
    }

    /// Width and height from the PNG's IHDR chunk (0 × 0 when it is missing).
    static func pngSize(_ png: Data) -> (Int, Int) {
        let b = [UInt8](png.prefix(24))
        guard b.count == 24, b[12...15].elementsEqual(Array("IHDR".utf8)) else { return (0, 0) }
        func be(_ i: Int) -> Int { b[i..<(i + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }
}
