import Foundation
import Glyphs

/// Offline glyphs for a style: MapLibre glyph protobufs (`{fontstack}/{range}.pbf`, 256 code points a range)
/// rendered with FreeType (`GlyphRenderer`) from a font file, for the ranges the labels' text uses.
///
/// The protobuf (`glyphs.proto` of the style spec): `glyphs { repeated fontstack stacks = 1; }`,
/// `fontstack { string name = 1; string range = 2; repeated glyph glyphs = 3; }`,
/// `glyph { uint32 id = 1; bytes bitmap = 2; uint32 width = 3; uint32 height = 4; sint32 left = 5; sint32 top = 6;
/// uint32 advance = 7; }`.
public enum GlyphSet {
    /// The fonts Kartpack looks for, by `text-font` name (Debian `fonts-noto-core`, then DejaVu).
    public static let fontFiles: [String: [String]] = [
        "Noto Sans Regular": [
            "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        ]
    ]

    /// The first font file that exists for `fontstack`.
    public static func fontFile(for fontstack: String) -> String? {
        (fontFiles[fontstack] ?? []).first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// The range starts (multiples of 256) that hold the code points of `texts`; range 0 (Basic Latin and
    /// Latin-1) is always included.
    public static func ranges(for texts: some Sequence<String>) -> [Int] {
        var starts: Set<Int> = [0]
        for t in texts {
            for u in t.unicodeScalars where u.value <= 0xFFFF { starts.insert(Int(u.value) & ~0xFF) }
        }
        return starts.sorted()
    }

    /// The protobuf of one range for `fontstack` from `renderer`.
    public static func pbf(fontstack: String, rangeStart: Int, renderer: GlyphRenderer) -> [UInt8] {
        var stack = ProtoWriter()
        stack.string(1, fontstack)
        stack.string(2, "\(rangeStart)-\(rangeStart + 255)")
        for cp in rangeStart...(rangeStart + 255) {
            guard let g = renderer.glyph(UInt32(cp)) else { continue }
            var glyph = ProtoWriter()
            glyph.varint(1, UInt64(g.id))
            if !g.bitmap.isEmpty { glyph.bytes(2, g.bitmap) }
            glyph.varint(3, UInt64(g.width))
            glyph.varint(4, UInt64(g.height))
            glyph.sint(5, Int64(g.left))
            glyph.sint(6, Int64(g.top))
            glyph.varint(7, UInt64(max(0, g.advance)))
            stack.bytes(3, glyph.out)
        }
        var root = ProtoWriter()
        root.bytes(1, stack.out)
        return root.out
    }

    /// Writes `folder/FONTSTACK/START-END.pbf` for every range; returns the paths written.
    /// - Throws: `.toolMissing` when no font file for the stack is installed, `.cannotWrite`.
    public static func write(fontstack: String, ranges: [Int], folder: String) throws(MapStyleError) -> [String] {
        guard let font = fontFile(for: fontstack) else {
            throw .toolMissing(
                tool: "the font for \(fontstack)", hint: "install fonts-noto-core (apt-get install fonts-noto-core)")
        }
        let renderer: GlyphRenderer
        do throws(GlyphError) {
            renderer = try GlyphRenderer(fontPath: font)
        } catch {
            throw .internalFailure(error.description)
        }
        let dir = (folder as NSString).appendingPathComponent(fontstack)
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw .cannotWrite(path: dir, reason: error.localizedDescription)
        }
        var written: [String] = []
        for start in ranges {
            let path = (dir as NSString).appendingPathComponent("\(start)-\(start + 255).pbf")
            try FileOutput.write(pbf(fontstack: fontstack, rangeStart: start, renderer: renderer), to: path)
            written.append(path)
        }
        return written
    }
}

/// A minimal protobuf writer (varints, zig-zag, length-delimited fields).
struct ProtoWriter {
    var out: [UInt8] = []

    mutating func raw(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    mutating func varint(_ field: Int, _ v: UInt64) {
        raw(UInt64(field << 3))
        raw(v)
    }

    mutating func sint(_ field: Int, _ v: Int64) { varint(field, UInt64(bitPattern: (v << 1) ^ (v >> 63))) }

    mutating func bytes(_ field: Int, _ b: [UInt8]) {
        raw(UInt64(field << 3 | 2))
        raw(UInt64(b.count))
        out += b
    }

    mutating func string(_ field: Int, _ s: String) { bytes(field, Array(s.utf8)) }
}
