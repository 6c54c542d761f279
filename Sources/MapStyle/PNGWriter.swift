import Gzip

/// Writes RGBA8 PNG files: signature, `IHDR` (colour type 6, 8 bits), one `IDAT` holding a zlib stream of the rows
/// (filter type 0 each), `IEND`; a CRC-32 per chunk. Deterministic for a given zlib.
public enum PNGWriter {
    /// The eight-byte PNG signature.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The PNG bytes of `image`.
    /// - Throws: `.badRequest` for an empty image, `.internalFailure` when zlib fails.
    public static func encode(_ image: RGBAImage) throws(MapStyleError) -> [UInt8] {
        guard image.width > 0, image.height > 0, image.pixels.count == image.width * image.height * 4 else {
            throw .badRequest("a PNG needs at least one pixel (got \(image.width)×\(image.height))")
        }
        var raw: [UInt8] = []
        raw.reserveCapacity((image.width * 4 + 1) * image.height)
        let stride = image.width * 4
        for row in 0..<image.height {
            raw.append(0)
            raw.append(contentsOf: image.pixels[(row * stride)..<((row + 1) * stride)])
        }
        let compressed: [UInt8]
        do throws(GzipError) {
            compressed = try Gzip.zlibCompress(raw, level: 9)
        } catch {
            throw .internalFailure("zlib: \(error.description)")
        }
        var out = signature
        var header: [UInt8] = []
        append32(UInt32(image.width), to: &header)
        append32(UInt32(image.height), to: &header)
        header += [8, 6, 0, 0, 0]
        chunk("IHDR", header, into: &out)
        chunk("IDAT", compressed, into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    static func append32(_ v: UInt32, to out: inout [UInt8]) {
        out += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        append32(UInt32(data.count), to: &out)
        let typed = Array(type.utf8) + data
        out += typed
        append32(Gzip.crc32(typed), to: &out)
    }
}
