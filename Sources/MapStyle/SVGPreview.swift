import Foundation
public import KartpackCore
public import Styling
import VectorTile

/// Draws a package with a stylesheet as SVG, the way the generated MapLibre style draws it (same `StylePlan`:
/// layer order, colours, widths, dashes, patterns, zoom ranges, labels).
///
/// - Tiles: the tiles of the area at the display zoom, or at the package's max zoom when the display zoom is
///   beyond it (overzoom). Each tile's content is clipped to its own square (no buffer) and to the canvas, so
///   features crossing tile seams are neither doubled nor stroked along the seams.
/// - Features: each planned layer draws the features of its source layer that pass its filter, with its paint
///   values evaluated per feature (the same expressions the client evaluates).
/// - Scale: a `.bbox` preview at zoom z is drawn at 512 pixels per tile of zoom z, as MapLibre draws zoom z.
/// - Labels: polygon labels at the package's label points (`LAYER_labels`), else one per feature id (the
///   largest piece); lines at the middle of their longest piece; points below the point.
/// - Output: well-formed, deterministic XML with a `viewBox`, a background, the map in `<g id="map">` (one
///   `<path>` per feature and fill/pattern/outline/line layer), and a legend in `<g id="legend">`.
public enum SVGPreview {
    /// The SVG of one tile of `package`.
    public static func render(
        package path: String, sheet: Stylesheet, tile: TileCoordinate, options: SVGPreviewOptions = SVGPreviewOptions()
    ) throws(MapStyleError) -> String {
        try preview(package: path, sheet: sheet, area: .tile(tile), options: options).svg
    }

    /// The SVG of a WGS 84 box (`minX` west, `minY` south, `maxX` east, `maxY` north) at `zoom`.
    public static func render(
        package path: String, sheet: Stylesheet, bbox: Bounds, zoom: Int,
        options: SVGPreviewOptions = SVGPreviewOptions()
    ) throws(MapStyleError) -> String {
        try preview(package: path, sheet: sheet, area: .bbox(bbox, zoom: zoom), options: options).svg
    }

    /// Renders an area and reports what was drawn.
    /// - Throws: `.cannotOpenPackage`, `.badPackage`, `.badRequest` (bad box or zoom, too many tiles),
    ///   `.tileMissing` (a `.tile` preview of a tile the package lacks).
    public static func preview(
        package path: String, sheet: Stylesheet, area: PreviewArea, options: SVGPreviewOptions = SVGPreviewOptions()
    ) throws(MapStyleError) -> SVGPreviewResult {
        let reader = try PackageReader(path: path)
        let info = try reader.info()
        let canvas = try Canvas(area: area, options: options)
        var sourceZoom = canvas.zoom
        if let maxZoom = info.maxZoom, sourceZoom > maxZoom { sourceZoom = maxZoom }
        // Shrink the box a little so that edges on tile borders do not pull in the neighbours.
        let eps = SphericalMercator.tileSize(zoom: sourceZoom) * 1e-9
        let box = Bounds(
            minX: canvas.bounds.minX + eps, minY: canvas.bounds.minY + eps, maxX: canvas.bounds.maxX - eps,
            maxY: canvas.bounds.maxY - eps)
        guard let range = SphericalMercator.tileRange(covering: box, zoom: sourceZoom) else {
            throw .badRequest("the area lies outside the Web Mercator world")
        }
        guard range.count <= options.maxTiles else {
            throw .badRequest(
                "the area needs \(range.count) tiles at zoom \(sourceZoom), more than \(options.maxTiles); "
                    + "choose a lower zoom or a smaller box")
        }
        var tiles: [(coordinate: TileCoordinate, tile: DecodedTile)] = []
        var missing = 0
        for t in range {
            if let decoded = try reader.tile(t) {
                tiles.append((t, decoded))
            } else {
                missing += 1
            }
        }
        if case .tile(let t) = area, tiles.isEmpty {
            var reason =
                "no tile at "
                + "\(TileCoordinate(z: sourceZoom, x: t.x >> (t.z - sourceZoom), y: t.y >> (t.z - sourceZoom)))"
            if let lo = info.minZoom, let hi = info.maxZoom { reason += "; the package has zooms \(lo)–\(hi)" }
            throw .tileMissing(tile: t.description, reason: reason)
        }
        var renderer = Renderer(info: info, sheet: sheet, canvas: canvas, options: options)
        renderer.collect(tiles)
        var result = renderer.draw()
        result.sourceZoom = sourceZoom
        result.tilesRead = tiles.count
        result.tilesMissing = missing
        return result
    }

    /// Converts SVG text to a PNG file with `rsvg-convert` (librsvg), found on `PATH`.
    /// - Throws: `.toolMissing` when `rsvg-convert` is not installed, `.toolFailed` when it fails,
    ///   `.cannotWrite` when the temporary SVG cannot be written.
    public static func rasterize(svg: String, to pngPath: String) throws(MapStyleError) {
        guard let tool = findExecutable("rsvg-convert") else {
            throw .toolMissing(
                tool: "rsvg-convert", hint: "install librsvg2-bin (apt-get install librsvg2-bin) or write .svg output")
        }
        // rsvg-convert writes a temporary PNG that is renamed into place: a FIFO at the path is refused first and
        // never opened, and a reader never sees half a picture.
        do throws(FileAccessError) {
            try RegularFile.checkWritable(pngPath)
        } catch {
            throw .cannotWrite(path: pngPath, reason: error.reason)
        }
        let (folder, name) = RegularFile.split(pngPath)
        let svgPath = folder + "/" + TemporaryName.make(for: name + ".svg", pid: getpid())
        let pngTemporary = folder + "/" + TemporaryName.make(for: name, pid: getpid())
        try FileOutput.write(Array(svg.utf8), to: svgPath)
        defer {
            try? FileManager.default.removeItem(atPath: svgPath)
            try? FileManager.default.removeItem(atPath: pngTemporary)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-f", "png", "-o", pngTemporary, svgPath]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .toolFailed(tool: tool, status: -1, message: error.localizedDescription)
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw .toolFailed(
                tool: "rsvg-convert", status: process.terminationStatus,
                message: String(decoding: message, as: UTF8.self).trimmingSpaces)
        }
        guard rename(pngTemporary, pngPath) == 0 else {
            throw .cannotWrite(path: pngPath, reason: String(cString: strerror(errno)))
        }
    }

    /// The path of an executable named `name` on `PATH`, or nil.
    static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where !dir.isEmpty {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// The pixel canvas of a preview: its Web Mercator bounds, size and display zoom.
struct Canvas {
    var bounds: Bounds
    var width: Double
    var height: Double
    var scale: Double  // pixels per metre
    var zoom: Int

    init(area: PreviewArea, options: SVGPreviewOptions) throws(MapStyleError) {
        switch area {
        case .tile(let t):
            guard t.isValid, t.z <= 24 else { throw .badRequest("tile \(t) is not a tile of zooms 0–24") }
            bounds = SphericalMercator.bounds(of: t)
            width = options.tilePixels
            height = options.tilePixels
            scale = options.tilePixels / SphericalMercator.tileSize(zoom: t.z)
            zoom = t.z
        case .bbox(let b, let z):
            guard (0...24).contains(z) else { throw .badRequest("zoom \(z) is outside 0–24") }
            guard b.minX.isFinite, b.minY.isFinite, b.maxX.isFinite, b.maxY.isFinite, b.minX >= -180, b.maxX <= 180,
                b.minY >= -90, b.maxY <= 90, b.minX < b.maxX, b.minY < b.maxY
            else {
                throw .badRequest(
                    "bad bounding box \(b.minX),\(b.minY),\(b.maxX),\(b.maxY): need W,S,E,N in degrees with W < E, S "
                        + "< N"
                )
            }
            let box = SphericalMercator.project(box: b)
            guard box.maxX > box.minX, box.maxY > box.minY else {
                throw .badRequest("the bounding box is empty in Web Mercator")
            }
            bounds = box
            // MapLibre's zoom: 512 pixels per tile of zoom z.
            scale = 512 / SphericalMercator.tileSize(zoom: z)
            width = max(1, ((box.maxX - box.minX) * scale).rounded())
            height = max(1, ((box.maxY - box.minY) * scale).rounded())
            guard width <= options.maxPixels, height <= options.maxPixels else {
                throw .badRequest(
                    "the box is \(Int(width))×\(Int(height)) pixels at zoom \(z) (512 px per tile, as the client "
                        + "draws it), more than \(Int(options.maxPixels)); choose a lower zoom or a smaller box")
            }
            zoom = z
        }
    }
}
