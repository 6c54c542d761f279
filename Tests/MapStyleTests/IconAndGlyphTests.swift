import Foundation
import Glyphs
import KartpackTestSupport
import MapStyle
import SVGRaster
import Styling
import Testing

@Suite struct SymbolTests {
    /// Every built-in symbol is a different picture, with ink and transparent corners.
    @Test func symbolsAreDistinct() {
        let images = MapSymbol.allCases.map { $0.raster(color: nil, pixelRatio: 2) }
        #expect(Set(images.map(\.pixels)).count == MapSymbol.allCases.count)
        for (s, img) in zip(MapSymbol.allCases, images) {
            #expect(img.width == 40 && img.height == 40)
            #expect(img.pixel(x: 0, y: 0).a == 0, "\(s)")
            let ink = (0..<40).flatMap { y in (0..<40).map { x in img.pixel(x: x, y: y) } }
                .filter {
                    $0.a == 255 && ($0.r, $0.g, $0.b) == (s.defaultColor.red, s.defaultColor.green, s.defaultColor.blue)
                }
            #expect(ink.count > 20, "\(s) has \(ink.count) ink pixels")
        }
    }

    /// Kartpack's rasteriser and librsvg draw the same symbol SVG alike: mean difference per channel under 3%,
    /// and no pixel's alpha more than half apart (anti-aliasing differs only at edges).
    @Test(arguments: MapSymbol.allCases)
    func ownRasteriserMatchesLibrsvg(symbol: MapSymbol) throws {
        let own = symbol.raster(color: nil, pixelRatio: 2)
        let svg = Array(symbol.svgDocument(color: nil, side: 40).utf8)
        let rsvg = try SVGRasterizer.rasterize(svg: svg, width: 40, height: 40)
        var total = 0.0
        var worst = 0
        for i in stride(from: 0, to: own.pixels.count, by: 4) {
            let a1 = Double(own.pixels[i + 3]) / 255
            let a2 = Double(rsvg.pixels[i + 3]) / 255
            for c in 0..<3 {
                // Compare premultiplied over white, as the pixels would show.
                let v1 = Double(own.pixels[i + c]) * a1 + 255 * (1 - a1)
                let v2 = Double(rsvg.pixels[i + c]) * a2 + 255 * (1 - a2)
                total += abs(v1 - v2)
            }
            worst = max(worst, abs(Int(own.pixels[i + 3]) - Int(rsvg.pixels[i + 3])))
        }
        let mean = total / Double(own.pixels.count / 4 * 3) / 255
        #expect(mean < 0.03, "\(symbol): mean difference \(mean)")
        #expect(worst < 128, "\(symbol): alpha differs by \(worst)")
    }

    @Test func svgIconsAreDrawnWithLibrsvg() throws {
        let path = RepositoryPaths.root.appendingPathComponent("SampleData/icons/fornlamning.svg").path
        let img = try SpriteSheet.draw(GeneratedSpriteImage(name: "i", shape: .svg(path: path)), pixelRatio: 2)
        #expect(img.width == 40)
        let center = img.pixel(x: 20, y: 20)
        #expect(center.a == 255 && center.r > 100 && center.g < 60)  // the red cross
        #expect(img.pixel(x: 0, y: 0).a == 0)
        #expect(throws: MapStyleError.self) {
            try SpriteSheet.draw(GeneratedSpriteImage(name: "x", shape: .svg(path: "/nonexistent.svg")), pixelRatio: 1)
        }
        #expect(throws: SVGRasterError.self) {
            try SVGRasterizer.rasterize(svg: Array("<nope".utf8), width: 4, height: 4)
        }
    }
}

/// Reads the fields of one protobuf message (varints and length-delimited only).
func protoFields(_ b: [UInt8]) -> [(field: Int, varint: UInt64?, bytes: [UInt8]?)] {
    var out: [(field: Int, varint: UInt64?, bytes: [UInt8]?)] = []
    var i = 0
    func varint() -> UInt64 {
        var v: UInt64 = 0
        var shift: UInt64 = 0
        while i < b.count {
            let x = b[i]
            i += 1
            v |= UInt64(x & 0x7F) << shift
            if x < 0x80 { break }
            shift += 7
        }
        return v
    }
    while i < b.count {
        let key = varint()
        switch key & 7 {
        case 0: out.append((Int(key >> 3), varint(), nil))
        case 2:
            let n = Int(varint())
            out.append((Int(key >> 3), nil, Array(b[i..<min(b.count, i + n)])))
            i += n
        default: return out
        }
    }
    return out
}

@Suite struct GlyphTests {
    static let font = GlyphSet.fontFile(for: "Noto Sans Regular")

    @Test func glyphProtobufHoldsSDFGlyphsOfTheRange() throws {
        let font = try #require(Self.font, "install fonts-noto-core")
        let renderer = try GlyphRenderer(fontPath: font)
        #expect(renderer.familyName == "Noto Sans" || renderer.familyName == "DejaVu Sans")
        let pbf = GlyphSet.pbf(fontstack: "Noto Sans Regular", rangeStart: 0, renderer: renderer)
        let stacks = protoFields(pbf)
        #expect(stacks.count == 1 && stacks[0].field == 1)
        let stack = protoFields(stacks[0].bytes ?? [])
        #expect(stack.first { $0.field == 1 }?.bytes.map { String(decoding: $0, as: UTF8.self) } == "Noto Sans Regular")
        #expect(stack.first { $0.field == 2 }?.bytes.map { String(decoding: $0, as: UTF8.self) } == "0-255")
        let glyphs = stack.filter { $0.field == 3 }.map { protoFields($0.bytes ?? []) }
        #expect(glyphs.count > 180)
        func glyph(_ id: UInt64) -> [Int: (UInt64?, [UInt8]?)]? {
            guard let g = glyphs.first(where: { $0.first { $0.field == 1 }?.varint == id }) else { return nil }
            return Dictionary(g.map { ($0.field, ($0.varint, $0.bytes)) }) { a, _ in a }
        }
        // "Ö" (U+00D6): an SDF of (w+6)×(h+6) bytes, inside ≥ 192, the corners outside (low).
        let o = try #require(glyph(0xD6))
        let w = Int(o[3]?.0 ?? 0)
        let h = Int(o[4]?.0 ?? 0)
        let bitmap = try #require(o[2]?.1)
        #expect(w > 8 && h > 15 && bitmap.count == (w + 6) * (h + 6))
        #expect(bitmap[0] < 60)
        #expect((bitmap.max() ?? 0) > 215 && bitmap.contains { (150...210).contains($0) })
        #expect((o[7]?.0 ?? 0) > 10)  // advance at 24 px
        // The space has an advance and no bitmap.
        let space = try #require(glyph(0x20))
        #expect(space[2] == nil && (space[7]?.0 ?? 0) > 3)
    }

    @Test func rangesFollowTheLabelTexts() {
        #expect(GlyphSet.ranges(for: ["Vännäs", "Granö 3:12"]) == [0])
        #expect(GlyphSet.ranges(for: ["Łódź", "Ωmega"]) == [0, 256, 768])
    }
}
