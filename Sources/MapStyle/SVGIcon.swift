import Foundation
import SVGRaster

/// SVG icon files named in a sheet (`icon: url("icons/pit.svg")`), read and drawn with librsvg.
enum SVGIcon {
    /// The file's bytes.
    static func bytes(path: String) throws(MapStyleError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .badRequest("icon \(path): cannot read the file")
        }
        guard data.count <= SVGRasterizer.maxBytes else {
            throw .badRequest("icon \(path): larger than \(SVGRasterizer.maxBytes) bytes")
        }
        return [UInt8](data)
    }

    /// The icon fitted into a `side`-pixel square (aspect kept).
    static func raster(path: String, side: Int) throws(MapStyleError) -> RGBAImage {
        let svg = try bytes(path: path)
        do throws(SVGRasterError) {
            let r = try SVGRasterizer.rasterize(svg: svg, width: side, height: side)
            var img = RGBAImage(width: r.width, height: r.height)
            img.pixels = r.pixels
            return img
        } catch {
            throw .badRequest("icon \(path): \(error.description)")
        }
    }
}
