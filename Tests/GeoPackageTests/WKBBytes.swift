import Foundation

/// Builds WKB and GeoPackage geometry blobs for tests, byte by byte.
struct WKBBytes {
    var bytes: [UInt8] = []
    var little = true

    init(little: Bool = true) { self.little = little }

    mutating func u32(_ v: UInt32) {
        let x = little ? v : v.byteSwapped
        for k in 0..<4 { bytes.append(UInt8((x >> (8 * k)) & 0xFF)) }
    }

    mutating func f64(_ d: Double) {
        let x = little ? d.bitPattern : d.bitPattern.byteSwapped
        for k in 0..<8 { bytes.append(UInt8((x >> (8 * UInt64(k))) & 0xFF)) }
    }

    mutating func head(_ type: UInt32) {
        bytes.append(little ? 1 : 0)
        u32(type)
    }

    /// A geometry of `type` whose points have `dims` values each (the extras zero).
    mutating func points(_ xy: [(Double, Double)], dims: Int = 2, count: Bool = true) {
        if count { u32(UInt32(xy.count)) }
        for (x, y) in xy {
            f64(x)
            f64(y)
            for _ in 2..<dims { f64(0) }
        }
    }

    static func point(_ x: Double, _ y: Double, type: UInt32 = 1, dims: Int = 2, little: Bool = true) -> [UInt8] {
        var w = WKBBytes(little: little)
        w.head(type)
        w.points([(x, y)], dims: dims, count: false)
        return w.bytes
    }

    static func line(_ xy: [(Double, Double)], type: UInt32 = 2, dims: Int = 2) -> [UInt8] {
        var w = WKBBytes()
        w.head(type)
        w.points(xy, dims: dims)
        return w.bytes
    }

    static func polygon(_ rings: [[(Double, Double)]], type: UInt32 = 3, dims: Int = 2) -> [UInt8] {
        var w = WKBBytes()
        w.head(type)
        w.u32(UInt32(rings.count))
        for r in rings { w.points(r, dims: dims) }
        return w.bytes
    }

    static func collection(_ type: UInt32, _ members: [[UInt8]]) -> [UInt8] {
        var w = WKBBytes()
        w.head(type)
        w.u32(UInt32(members.count))
        for m in members { w.bytes += m }
        return w.bytes
    }

    /// A GeoPackage blob: `GP`, version 0, flags, SRS id and an envelope of `envelope` kind (zeros).
    static func blob(
        _ wkb: [UInt8], srs: Int32 = 4326, envelope: UInt8 = 0, empty: Bool = false, little: Bool = true
    ) -> [UInt8] {
        var w = WKBBytes(little: little)
        w.bytes = [0x47, 0x50, 0, (envelope << 1) | (empty ? 0x10 : 0) | (little ? 1 : 0)]
        w.u32(UInt32(bitPattern: srs))
        let sizes = [0, 32, 48, 48, 64]
        w.bytes += [UInt8](repeating: 0, count: sizes[Int(envelope)])
        return w.bytes + wkb
    }

    static let square: [(Double, Double)] = [(0, 0), (0, 10), (10, 10), (10, 0), (0, 0)]
    static let hole: [(Double, Double)] = [(2, 2), (4, 2), (4, 4), (2, 4), (2, 2)]
}
