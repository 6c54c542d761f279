import Foundation
import KartpackCore
import SVGRaster

/// SVG icon files named in a sheet (`icon: url("icons/pit.svg")`), read and drawn with librsvg.
enum SVGIcon {
    /// The file's bytes.
    static func bytes(path: String) throws(MapStyleError) -> [UInt8] {
        // Never blocks on a FIFO named like an icon; only regular files are read.
        do throws(FileAccessError) {
            return try RegularFile.read(path, maxBytes: SVGRasterizer.maxBytes)
        } catch {
            throw .badRequest("icon \(path): \(error.reason)")
        }
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
