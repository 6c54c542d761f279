internal import CFreeType

/// One glyph as MapLibre's glyph protobuf carries it: a signed-distance field of `(width + 6) × (height + 6)`
/// bytes (a 3-pixel buffer on each side) at the 24-pixel em MapLibre uses, and its metrics in pixels.
public struct SDFGlyph: Sendable, Hashable {
    /// The Unicode code point.
    public var id: UInt32
    /// The distance field, rows top to bottom; empty for glyphs without ink (space).
    public var bitmap: [UInt8]
    /// Ink width in pixels (without the buffer).
    public var width: Int
    /// Ink height in pixels (without the buffer).
    public var height: Int
    /// From the pen position to the ink's left edge.
    public var left: Int
    /// From the baseline up to the ink's top edge.
    public var top: Int
    /// The horizontal advance.
    public var advance: Int
}

/// Why a font could not be used.
public struct GlyphError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String
}

/// Renders glyphs of one font file with FreeType as MapLibre signed-distance fields: FreeType's own `sdf`
/// renderer (spread 8 px) at 24 px per em, re-scaled to MapLibre's encoding (edge at 192, 255/8 per pixel
/// inside, i.e. tiny-sdf's radius 8 and cutoff 0.25) and cropped to a 3-pixel buffer.
///
/// One FreeType library and face per renderer; not shared between threads.
public final class GlyphRenderer {
    /// The em size in pixels (MapLibre's glyph size).
    public static let emPixels = 24
    /// The buffer around the ink in pixels.
    public static let buffer = 3
    private static let spread: Int32 = 8
    private var library: FT_Library?
    private var face: FT_Face?
    /// The family and style names FreeType reads from the font, e.g. "Noto Sans" / "Regular".
    public let familyName: String
    public let styleName: String

    /// Opens a font file (TrueType / OpenType / …, face 0).
    public init(fontPath: String) throws(GlyphError) {
        var lib: FT_Library?
        guard FT_Init_FreeType(&lib) == 0, let lib else { throw GlyphError(description: "FreeType failed to start") }
        library = lib
        var f: FT_Face?
        guard FT_New_Face(lib, fontPath, 0, &f) == 0, let f else {
            FT_Done_FreeType(lib)
            library = nil
            throw GlyphError(description: "\(fontPath) is not a font FreeType can open")
        }
        face = f
        guard FT_Set_Pixel_Sizes(f, 0, FT_UInt(Self.emPixels)) == 0 else {
            FT_Done_Face(f)
            FT_Done_FreeType(lib)
            face = nil
            library = nil
            throw GlyphError(description: "\(fontPath) has no scalable size \(Self.emPixels) px")
        }
        var spread = Self.spread
        _ = FT_Property_Set(lib, "sdf", "spread", &spread)
        familyName = f.pointee.family_name.map { String(cString: $0) } ?? "Unknown"
        styleName = f.pointee.style_name.map { String(cString: $0) } ?? "Regular"
    }

    deinit {
        if let face { FT_Done_Face(face) }
        if let library { FT_Done_FreeType(library) }
    }

    /// True when the font maps the code point to a glyph.
    public func hasGlyph(_ codePoint: UInt32) -> Bool {
        guard let face else { return false }
        return FT_Get_Char_Index(face, FT_ULong(codePoint)) != 0
    }

    /// The SDF glyph of a code point, or nil when the font lacks it or FreeType cannot render it.
    public func glyph(_ codePoint: UInt32) -> SDFGlyph? {
        guard let face, hasGlyph(codePoint) else { return nil }
        guard FT_Load_Char(face, FT_ULong(codePoint), FT_Int32(FT_LOAD_NO_HINTING)) == 0, let slot = face.pointee.glyph
        else { return nil }
        let advance = Int((Double(slot.pointee.advance.x) / 64).rounded())
        let outline = slot.pointee.outline
        guard outline.n_points > 0 else {
            return SDFGlyph(id: codePoint, bitmap: [], width: 0, height: 0, left: 0, top: 0, advance: advance)
        }
        guard FT_Render_Glyph(slot, FT_RENDER_MODE_SDF) == 0 else { return nil }
        let bm = slot.pointee.bitmap
        let rows = Int(bm.rows)
        let cols = Int(bm.width)
        let pad = Int(Self.spread)
        guard let buffer = bm.buffer, rows > 2 * pad, cols > 2 * pad else {
            return SDFGlyph(id: codePoint, bitmap: [], width: 0, height: 0, left: 0, top: 0, advance: advance)
        }
        let pitch = Int(bm.pitch)
        let width = cols - 2 * pad
        let height = rows - 2 * pad
        let b = Self.buffer
        let outW = width + 2 * b
        let outH = height + 2 * b
        var out = [UInt8](repeating: 0, count: outW * outH)
        for y in 0..<outH {
            let sy = y + pad - b
            for x in 0..<outW {
                let sx = x + pad - b
                let v = Double(buffer[sy * pitch + sx])
                let d = (v - 128) / 128 * Double(Self.spread)  // > 0 inside
                let m = 191.25 + 255.0 / 8.0 * d
                out[y * outW + x] = UInt8(max(0, min(255, m.rounded())))
            }
        }
        return SDFGlyph(
            id: codePoint, bitmap: out, width: width, height: height, left: Int(slot.pointee.bitmap_left) + pad,
            top: Int(slot.pointee.bitmap_top) - pad, advance: advance)
    }
}
