import Foundation
import Gzip
import MapStyle
import Styling
import Testing

/// An independent CRC-32 (bitwise, polynomial 0xEDB88320) to check the writer's chunks.
func referenceCRC32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes {
        crc ^= UInt32(b)
        for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// Decodes an RGBA8, non-interlaced, filter-0 PNG: checks the signature, chunk CRCs, IHDR and IEND.
func decodePNG(_ png: [UInt8]) throws -> RGBAImage {
    #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    func u32(_ i: Int) -> UInt32 {
        UInt32(png[i]) << 24 | UInt32(png[i + 1]) << 16 | UInt32(png[i + 2]) << 8 | UInt32(png[i + 3])
    }
    var i = 8
    var width = 0
    var height = 0
    var idat: [UInt8] = []
    var types: [String] = []
    while i + 12 <= png.count {
        let length = Int(u32(i))
        let type = String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self)
        let data = Array(png[(i + 8)..<(i + 8 + length)])
        #expect(u32(i + 8 + length) == referenceCRC32(Array(png[(i + 4)..<(i + 8 + length)])), "CRC of \(type)")
        types.append(type)
        if type == "IHDR" {
            width = Int(UInt32(data[0]) << 24 | UInt32(data[1]) << 16 | UInt32(data[2]) << 8 | UInt32(data[3]))
            height = Int(UInt32(data[4]) << 24 | UInt32(data[5]) << 16 | UInt32(data[6]) << 8 | UInt32(data[7]))
            #expect(Array(data[8...]) == [8, 6, 0, 0, 0])
        }
        if type == "IDAT" { idat += data }
        i += 12 + length
    }
    #expect(i == png.count)
    #expect(types.first == "IHDR" && types.last == "IEND")
    let raw = try Gzip.decompress(idat, maxOutput: 1 << 26)
    #expect(raw.count == (width * 4 + 1) * height)
    var image = RGBAImage(width: width, height: height)
    for y in 0..<height {
        let row = y * (width * 4 + 1)
        #expect(raw[row] == 0)
        image.pixels.replaceSubrange((y * width * 4)..<((y + 1) * width * 4), with: raw[(row + 1)...(row + width * 4)])
    }
    return image
}

@Suite struct SpriteTests {
    let green = StyleColor(red: 0x1b, green: 0x5e, blue: 0x20)

    @Test(arguments: FillPattern.allCases)
    func everyPatternIsDrawnAndRepeats(pattern: FillPattern) {
        let spec = PatternSpec(pattern: pattern, color: green)
        for ratio in [1, 2] {
            let img = PatternRaster.draw(spec, pixelRatio: ratio)
            #expect(img.width == 16 * ratio && img.height == 16 * ratio)
            var ink = 0.0
            for y in 0..<img.height {
                for x in 0..<img.width {
                    let p = img.pixel(x: x, y: y)
                    if p.a > 0 {
                        ink += Double(p.a) / 255
                        #expect(p.r == green.red && p.g == green.green && p.b == green.blue)
                    }
                    // Period of 8 px at 1× in both directions: the tile repeats without seams.
                    let q = img.pixel(x: (x + 8 * ratio) % img.width, y: (y + 8 * ratio) % img.height)
                    #expect(p == q)
                }
            }
            // Mean coverage: enough ink to see, enough gap to see through.
            let share = ink / Double(img.width * img.height)
            #expect(share > 0.05 && share < 0.5, "\(pattern) at \(ratio)x covers \(share)")
        }
    }

    @Test func patternsDiffer() {
        let images = FillPattern.allCases.map {
            PatternRaster.draw(PatternSpec(pattern: $0, color: green), pixelRatio: 1).pixels
        }
        #expect(Set(images).count == FillPattern.allCases.count)
    }

    /// Pattern colour, background, spacing and width change the tile as the sheet says.
    @Test func patternOptions() {
        let red = StyleColor(red: 200, green: 0, blue: 0)
        let bg = StyleColor(red: 255, green: 255, blue: 200)
        let wide = PatternRaster.draw(
            PatternSpec(pattern: .horizontal, color: red, background: bg, spacing: 12, width: 3), pixelRatio: 1)
        #expect(wide.width == 24 && wide.height == 24)
        // Lines at y = 6, 18 (period 12, half a period in), 3 px wide, red; everything else the background.
        #expect(wide.pixel(x: 5, y: 6) == (200, 0, 0, 255))
        #expect(wide.pixel(x: 5, y: 12) == (255, 255, 200, 255))
        #expect(wide.pixel(x: 5, y: 18) == (200, 0, 0, 255))
        #expect(
            GeneratedSpriteImage.patternName(
                PatternSpec(pattern: .horizontal, color: red, background: bg, spacing: 12, width: 3))
                == "pattern-horizontal-c80000-bgffffc8-s12-w3")
        #expect(GeneratedSpriteImage.patternName(PatternSpec(pattern: .dots, color: red)) == "pattern-dots-c80000")
        // Forward and backward diagonals mirror each other.
        let f = PatternRaster.draw(PatternSpec(pattern: .diagonalHatch, color: red), pixelRatio: 1)
        let b = PatternRaster.draw(PatternSpec(pattern: .backwardDiagonal, color: red), pixelRatio: 1)
        for y in 0..<16 { for x in 0..<16 { #expect(f.pixel(x: x, y: y) == b.pixel(x: 15 - x, y: y)) } }
    }

    @Test func pngRoundTrips() throws {
        var img = RGBAImage(width: 3, height: 2)
        img.setPixel(x: 0, y: 0, (255, 0, 0, 255))
        img.setPixel(x: 2, y: 1, (1, 2, 3, 4))
        let png = try PNGWriter.encode(img)
        #expect(try decodePNG(png) == img)
        #expect(throws: MapStyleError.self) { try PNGWriter.encode(RGBAImage(width: 0, height: 0)) }
    }

    @Test func spriteSheetPacksImagesAtBothRatios() throws {
        let images =
            FillPattern.allCases.map {
                let spec = PatternSpec(pattern: $0, color: green)
                return GeneratedSpriteImage(name: GeneratedSpriteImage.patternName(spec), shape: .pattern(spec))
            }
            + MapSymbol.allCases.map {
                GeneratedSpriteImage(name: GeneratedSpriteImage.symbolName($0, nil), shape: .symbol($0, nil))
            }
        for ratio in [1, 2] {
            let sheet = try SpriteSheet(images: images, pixelRatio: ratio)
            let decoded = try decodePNG(try sheet.png())
            #expect(decoded == sheet.image)
            let names = sheet.index.objectMembers?.map(\.key) ?? []
            #expect(names == images.map(\.name).sorted())
            for img in images {
                let e = try #require(sheet.index[img.name])
                let x = Int(e["x"]?.intValue ?? -1)
                let y = Int(e["y"]?.intValue ?? -1)
                let side = Int(e["width"]?.intValue ?? 0)
                #expect(side == img.size.width * ratio && e["height"]?.intValue == Int64(img.size.height * ratio))
                #expect(e["pixelRatio"]?.intValue == Int64(ratio))
                #expect(x + side <= decoded.width && y + side <= decoded.height)
                // The sheet holds the image where the index says.
                let alone = try SpriteSheet.draw(img, pixelRatio: ratio)
                for py in 0..<side {
                    for px in 0..<side {
                        #expect(decoded.pixel(x: x + px, y: y + py) == alone.pixel(x: px, y: py))
                    }
                }
            }
        }
    }

    @Test func spriteFilesAreWritten() throws {
        let dir = try ScratchFolder()
        let images = [
            GeneratedSpriteImage(
                name: "pattern-dots-1b5e20", shape: .pattern(PatternSpec(pattern: .dots, color: green)))
        ]
        let files = try SpriteSheet.write(images: images, basePath: dir.file("sprite"))
        #expect(
            files.map { String($0.split(separator: "/").last ?? "") } == [
                "sprite.json", "sprite.png", "sprite@2x.json", "sprite@2x.png",
            ])
        let png2 = try decodePNG(Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("sprite@2x.png")))))
        #expect(png2.width == 32 && png2.height == 32)
        let index = try StyleJSON.parse(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir.file("sprite@2x.json"))), as: UTF8.self))
        #expect(index["pattern-dots-1b5e20"]?["pixelRatio"] == .int(2))
    }
}

@Suite struct StyleJSONTests {
    @Test func parsesAndPrintsRoundTrip() throws {
        let text = #"{"a":[1,2.5,-3e2,"x\"\u00e9\ud83d\ude00",true,false,null],"b":{"c":{}},"d":[]}"#
        let v = try StyleJSON.parse(text)
        #expect(v["a"]?.arrayValue?.count == 7)
        #expect(v["a"]?.arrayValue?[3] == .string("x\"é😀"))
        #expect(try StyleJSON.parse(StyleJSON.pretty(v)) == v)
        #expect(try StyleJSON.parse(StyleJSON.compact(v)) == v)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "\"\\ud800\"", "[1] x", "nul", "\"\u{01}\""])
    func rejectsBadJSON(text: String) {
        #expect(throws: StyleJSONParseError.self) { try StyleJSON.parse(text) }
    }

    @Test func prettyLayoutIsStable() throws {
        let v = try StyleJSON.parse(
            #"{"version":8,"center":[17.25,63.5],"layers":[{"id":"a","filter":["==",["get","k"],"v"],"paint":{}}],"#
                + #""glyphs":["Noto Sans Regular","Noto Sans Italic","Noto Sans Bold","Open Sans Regular","Open Sans "#
                + #"Semibold","Roboto Medium"]}"#
        )
        #expect(
            StyleJSON.pretty(v) == """
                {
                  "version": 8,
                  "center": [17.25,63.5],
                  "layers": [
                    {
                      "id": "a",
                      "filter": ["==",["get","k"],"v"],
                      "paint": {}
                    }
                  ],
                  "glyphs": [
                    "Noto Sans Regular",
                    "Noto Sans Italic",
                    "Noto Sans Bold",
                    "Open Sans Regular",
                    "Open Sans Semibold",
                    "Roboto Medium"
                  ]
                }

                """)
        #expect(StyleJSON.compact(v).hasPrefix(#"{"version":8,"center":[17.25,63.5],"layers":[{"id":"a","filter":["#))
    }

    @Test func parseErrorsSayWhere() throws {
        do throws(StyleJSONParseError) {
            _ = try StyleJSON.parse("{\n  \"a\": [1 2]\n}")
            Issue.record("parsed")
        } catch {
            #expect(error.message == "expected ',' or ']' in the array, found '2'")
            #expect(error.offset == 12)
            #expect(error.line == 2 && error.column == 11)
            #expect(error.description == "expected ',' or ']' in the array, found '2' at byte 12")
        }
        // 128 levels: the innermost of 128 nested arrays is at depth 127.
        let deep = String(repeating: "[", count: 129) + String(repeating: "]", count: 129)
        #expect(throws: StyleJSONParseError.self) { try StyleJSON.parse(deep) }
        #expect(try StyleJSON.parse(String(deep.dropFirst().dropLast())) != .null)
    }
}
