internal import CRsvg

/// Why an SVG could not be drawn.
public struct SVGRasterError: Error, Sendable, CustomStringConvertible {
    /// librsvg's message, or what was wrong.
    public var description: String
}

/// An RGBA8 picture with straight alpha, rows top to bottom.
public struct RasterImage: Sendable, Hashable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// `width * height * 4` bytes.
    public var pixels: [UInt8]
}

/// Draws SVG documents with librsvg onto a cairo image surface.
///
/// The SVG is read from memory, so references to other files (`<image href>`, external CSS) cannot load anything:
/// librsvg resolves them against a base file, and there is none. Documents above `maxBytes` are refused.
public enum SVGRasterizer {
    /// The largest SVG accepted.
    public static let maxBytes = 1 << 20

    /// Draws the whole document fitted (aspect kept, centred) into `width × height` pixels.
    public static func rasterize(svg: [UInt8], width: Int, height: Int) throws(SVGRasterError) -> RasterImage {
        guard width > 0, height > 0, width <= 4096, height <= 4096 else {
            throw SVGRasterError(description: "bad size \(width)×\(height)")
        }
        let handle = try open(svg)
        defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw SVGRasterError(description: "cairo could not make a surface")
        }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { throw SVGRasterError(description: "cairo could not draw") }
        var viewport = RsvgRectangle(x: 0, y: 0, width: Double(width), height: Double(height))
        var error: UnsafeMutablePointer<GError>?
        let ok = rsvg_handle_render_document(handle, cr, &viewport, &error)
        cairo_destroy(cr)
        if ok == 0 {
            let message = error.map { String(cString: $0.pointee.message) } ?? "librsvg could not draw the SVG"
            if let error { g_error_free(error) }
            throw SVGRasterError(description: message)
        }
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else {
            throw SVGRasterError(description: "cairo gave no pixels")
        }
        let stride = Int(cairo_image_surface_get_stride(surface))
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                // CAIRO_FORMAT_ARGB32: native-endian premultiplied 32-bit words (B, G, R, A bytes on little endian).
                let word = UnsafeRawPointer(data + y * stride + x * 4).loadUnaligned(as: UInt32.self)
                let a = UInt32((word >> 24) & 0xFF)
                var rgb = [(word >> 16) & 0xFF, (word >> 8) & 0xFF, word & 0xFF]
                if a > 0 && a < 255 { rgb = rgb.map { min(255, ($0 * 255 + a / 2) / a) } }
                let i = (y * width + x) * 4
                pixels[i] = UInt8(rgb[0])
                pixels[i + 1] = UInt8(rgb[1])
                pixels[i + 2] = UInt8(rgb[2])
                pixels[i + 3] = UInt8(a)
            }
        }
        return RasterImage(width: width, height: height, pixels: pixels)
    }

    private static func open(_ svg: [UInt8]) throws(SVGRasterError) -> UnsafeMutablePointer<RsvgHandle> {
        guard !svg.isEmpty, svg.count <= maxBytes else {
            throw SVGRasterError(
                description: svg.isEmpty ? "the SVG is empty" : "the SVG is larger than \(maxBytes) bytes")
        }
        var error: UnsafeMutablePointer<GError>?
        let handle = svg.withUnsafeBufferPointer { buf in
            rsvg_handle_new_from_data(buf.baseAddress, gsize(buf.count), &error)
        }
        guard let handle else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "not an SVG librsvg can read"
            if let error { g_error_free(error) }
            throw SVGRasterError(description: message)
        }
        return handle
    }
}
