import Foundation
import KartpackCore
import MapStyle
import Testing
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Counts elements of a parsed SVG: all of them, and those inside `<g id="map">` / `<g id="legend">`.
final class SVGCounter: NSObject, XMLParserDelegate {
    var stack: [String] = []
    var groups: [String] = []
    var inMap: [String: Int] = [:]
    var total: [String: Int] = [:]
    var texts: [String] = []
    var rootAttributes: [String: String] = [:]
    private var currentText: String?

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if stack.isEmpty { rootAttributes = attributes }
        stack.append(name)
        groups.append(attributes["id"] ?? (groups.last ?? ""))
        total[name, default: 0] += 1
        if groups.contains("map") { inMap[name, default: 0] += 1 }
        if name == "text" { currentText = "" }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { currentText? += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text", let t = currentText, groups.contains("map") { texts.append(t) }
        if name == "text" { currentText = nil }
        stack.removeLast()
        groups.removeLast()
    }
}

func parseSVG(_ svg: String) throws -> SVGCounter {
    let parser = XMLParser(data: Data(svg.utf8))
    let counter = SVGCounter()
    parser.delegate = counter
    let ok = parser.parse()
    #expect(ok, "SVG is not well-formed XML: \(String(describing: parser.parserError))")
    return counter
}

@Suite struct SVGPreviewTests {
    func package(_ ext: String) throws -> (ScratchFolder, String) {
        let dir = try ScratchFolder()
        let path = dir.file("test.\(ext)")
        try writePreviewPackage(path)
        return (dir, path)
    }

    @Test(arguments: ["pmtiles", "mbtiles"])
    func oneTile(ext: String) throws {
        let (dir, path) = try package(ext)
        _ = dir
        let sheet = try parseSheet(everyDeclarationSheet)
        let result = try SVGPreview.preview(package: path, sheet: sheet, area: .tile(tileA))
        let svg = try parseSVG(result.svg)
        #expect(svg.rootAttributes["viewBox"]?.hasPrefix("0 0 512 ") == true)
        // Area 1: fill + outline; area 2: pattern + outline; the two unclassed areas: the base rule's outline
        // each (the client draws features without a class by the rules that give them a look); the road.
        #expect(svg.inMap["path"] == 7)
        #expect(result.paths == 7)
        #expect(result.unclassified == 2)
        // The monument (a symbol) and the site; the buffer point belongs to the next tile.
        #expect(svg.inMap["circle"] == 1)
        #expect(svg.inMap["use"] == 1)
        #expect(svg.texts.sorted() == ["A <&> \"B\"", "E4"])
        #expect(result.svg.contains("A &lt;&amp;&gt; &quot;B&quot;"))
        #expect(svg.total["pattern"] == 2)
        #expect(result.tilesRead == 1 && result.sourceZoom == 3)
        // Deterministic.
        #expect(try SVGPreview.render(package: path, sheet: sheet, tile: tileA) == result.svg)
        // The legend names every drawn class.
        for name in ["plain (areas)", "hatched (areas)", "road (roads)", "monument (sites)", "site (sites)"] {
            #expect(result.svg.contains(name), "\(name)")
        }
    }

    @Test func boundingBoxAcrossTwoTilesDoesNotDoubleFeatures() throws {
        let (dir, path) = try package("pmtiles")
        _ = dir
        let sheet = try parseSheet(everyDeclarationSheet)
        let a = SphericalMercator.bounds(of: tileA)
        let b = SphericalMercator.bounds(of: tileB)
        let sw = SphericalMercator.unproject(x: a.minX, y: a.minY)
        let ne = SphericalMercator.unproject(x: b.maxX, y: b.maxY)
        let box = Bounds(minX: sw.longitude, minY: sw.latitude, maxX: ne.longitude, maxY: ne.latitude)
        let result = try SVGPreview.preview(package: path, sheet: sheet, area: .bbox(box, zoom: 3))
        #expect(result.tilesRead == 2)
        #expect(result.width == 1024 && result.height == 512)
        let svg = try parseSVG(result.svg)
        // Tile A's 7 paths, plus area 1's piece in tile B (fill + outline).
        #expect(svg.inMap["path"] == 9)
        // The buffer point is drawn once, by the tile that owns it.
        #expect(svg.inMap["circle"] == 2)
        #expect(svg.inMap["use"] == 1)
        // One label per feature id, though area 1 lies in two tiles.
        #expect(svg.texts.sorted() == ["A <&> \"B\"", "E4"])
    }

    @Test func zoomRangesHideClasses() throws {
        let (dir, path) = try package("pmtiles")
        _ = dir
        let sheet = try parseSheet(everyDeclarationSheet.replacingOccurrences(of: "min-zoom: 2", with: "min-zoom: 5"))
        let result = try SVGPreview.preview(package: path, sheet: sheet, area: .tile(tileA))
        let svg = try parseSVG(result.svg)
        #expect(svg.inMap["path"] == 5)  // area 1 (plain) is hidden below zoom 5
        #expect(svg.texts == ["E4"])
    }

    @Test func overzoomReadsTheParentTile() throws {
        let (dir, path) = try package("pmtiles")
        _ = dir
        let sheet = try parseSheet(everyDeclarationSheet)
        // The north-west quarter of tile A at zoom 4: holds the start of the road and the monument.
        let child = TileCoordinate(z: 4, x: 8, y: 4)
        let result = try SVGPreview.preview(package: path, sheet: sheet, area: .tile(child))
        #expect(result.sourceZoom == 3)
        let svg = try parseSVG(result.svg)
        #expect(svg.inMap["path"] == 1)
        #expect(svg.inMap["use"] == 1)
    }

    @Test func errors() throws {
        let (dir, path) = try package("pmtiles")
        let sheet = try parseSheet(everyDeclarationSheet)
        #expect {
            try SVGPreview.render(package: path, sheet: sheet, tile: TileCoordinate(z: 3, x: 0, y: 0))
        } throws: { ($0 as? MapStyleError)?.exitCode == .usage && "\($0)".contains("zooms 3–3") }
        #expect {
            try SVGPreview.render(package: dir.file("missing.pmtiles"), sheet: sheet, tile: tileA)
        } throws: { ($0 as? MapStyleError)?.exitCode == .noInput }
        let garbage = dir.file("garbage.pmtiles")
        try Data("not a package at all, just some text".utf8).write(to: URL(fileURLWithPath: garbage))
        #expect {
            try SVGPreview.render(package: garbage, sheet: sheet, tile: tileA)
        } throws: { ($0 as? MapStyleError)?.exitCode == .dataError }
        #expect {
            try SVGPreview.render(
                package: path, sheet: sheet, bbox: Bounds(minX: 10, minY: 50, maxX: 5, maxY: 60), zoom: 3)
        } throws: { ($0 as? MapStyleError)?.exitCode == .usage }
        var few = SVGPreviewOptions()
        few.maxTiles = 4
        #expect {
            try SVGPreview.render(
                package: path, sheet: sheet, bbox: Bounds(minX: -180, minY: -80, maxX: 180, maxY: 80), zoom: 12,
                options: few)
        } throws: { "\($0)".contains("more than 4") }
    }

    @Test func styleExportWritesAnOfflineFolder() throws {
        let (dir, path) = try package("pmtiles")
        let sheet = try parseSheet(everyDeclarationSheet)
        var options = StyleExportOptions()
        options.baseURL = "http://127.0.0.1:8000/map"
        let result = try StyleExport.write(
            sheet: sheet, packagePath: path, stylePath: dir.file("style.json"), options: options)
        #expect(result.issues.isEmpty, "\(result.issues)")
        #expect(result.sourceURL == "pmtiles://http://127.0.0.1:8000/map/test.pmtiles")
        for f in result.files { #expect(FileManager.default.fileExists(atPath: f)) }
        #expect(FileManager.default.fileExists(atPath: dir.file("glyphs/Noto Sans Regular/0-255.pbf")))
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir.file("style.json"))), as: UTF8.self)
        #expect(text.contains("\"http://127.0.0.1:8000/map/sprite\""))
        #expect(text.contains("\"http://127.0.0.1:8000/map/glyphs/{fontstack}/{range}.pbf\""))
        let png = try decodePNG(Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("sprite.png")))))
        #expect(png.width >= 16 && png.height >= 16)
        // MBTiles needs a tiles URL.
        let (dir2, mb) = try package("mbtiles")
        #expect(throws: MapStyleError.self) {
            try StyleExport.write(sheet: sheet, packagePath: mb, stylePath: dir2.file("style.json"))
        }
        var tiles = StyleExportOptions()
        tiles.tilesURL = "http://127.0.0.1:8000/t/{z}/{x}/{y}.pbf"
        let r2 = try StyleExport.write(
            sheet: sheet, packagePath: mb, stylePath: dir2.file("style.json"), options: tiles)
        #expect(r2.issues.isEmpty && r2.sourceURL == tiles.tilesURL)
    }

    @Test func rasterizeNeedsRsvgConvert() throws {
        let dir = try ScratchFolder()
        let svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"><rect width=\"4\" height=\"4\"/></svg>"
        let out = dir.file("x.png")
        let hasTool = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/rsvg-convert")
        }
        if hasTool {
            try SVGPreview.rasterize(svg: svg, to: out)
            let image = try decodePNGHeader(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
            #expect(image == (4, 4))
        } else {
            #expect {
                try SVGPreview.rasterize(svg: svg, to: out)
            } throws: { "\($0)".contains("rsvg-convert") }
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }
}

/// Width and height from a PNG's IHDR.
func decodePNGHeader(_ png: [UInt8]) throws -> (Int, Int) {
    guard png.count > 24 else { throw CocoaError(.fileReadCorruptFile) }
    func u32(_ i: Int) -> Int { Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3]) }
    return (u32(16), u32(20))
}
