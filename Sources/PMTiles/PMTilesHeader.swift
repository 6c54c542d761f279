/// The 127-byte PMTiles v3 header. All integers little-endian; positions are lon/lat × 10⁷.
public struct PMTilesHeader: Sendable, Hashable {
    /// The header's size in bytes.
    public static let size = 127
    /// Header plus root directory must fit in this many bytes.
    public static let rootLimit = 16_384

    /// Compression codes for directories, metadata and tiles.
    public enum Compression: UInt8, Sendable, Hashable {
        /// The spec's codes 0...4.
        case unknown = 0, none = 1, gzip = 2, brotli = 3, zstd = 4
    }

    /// Tile type codes.
    public enum TileType: UInt8, Sendable, Hashable {
        /// The spec's codes 0...6.
        case unknown = 0, mvt = 1, png = 2, jpeg = 3, webp = 4, avif = 5, mlt = 6
    }

    /// Spec version (3).
    public var specVersion: UInt8 = 3
    /// Root directory offset and length.
    public var rootOffset: UInt64 = 0
    /// Root directory length (compressed).
    public var rootLength: UInt64 = 0
    /// JSON metadata offset.
    public var metadataOffset: UInt64 = 0
    /// JSON metadata length (compressed).
    public var metadataLength: UInt64 = 0
    /// Leaf directories section offset.
    public var leafOffset: UInt64 = 0
    /// Leaf directories section length (0 = no leaves).
    public var leafLength: UInt64 = 0
    /// Tile data section offset.
    public var tileDataOffset: UInt64 = 0
    /// Tile data section length.
    public var tileDataLength: UInt64 = 0
    /// Σ run lengths (0 = unknown).
    public var addressedTiles: UInt64 = 0
    /// Entries with run length > 0 (0 = unknown).
    public var tileEntries: UInt64 = 0
    /// Distinct blobs (0 = unknown).
    public var tileContents: UInt64 = 0
    /// True when blobs are in TileID order.
    public var clustered: Bool = true
    /// Raw internal (directory and metadata) compression code.
    public var internalCompressionCode: UInt8 = Compression.gzip.rawValue
    /// Raw tile compression code.
    public var tileCompressionCode: UInt8 = Compression.gzip.rawValue
    /// Raw tile type code.
    public var tileTypeCode: UInt8 = TileType.mvt.rawValue
    /// Lowest zoom.
    public var minZoom: UInt8 = 0
    /// Highest zoom.
    public var maxZoom: UInt8 = 0
    /// West longitude × 10⁷.
    public var minLonE7: Int32 = 0
    /// South latitude × 10⁷.
    public var minLatE7: Int32 = 0
    /// East longitude × 10⁷.
    public var maxLonE7: Int32 = 0
    /// North latitude × 10⁷.
    public var maxLatE7: Int32 = 0
    /// Center zoom.
    public var centerZoom: UInt8 = 0
    /// Center longitude × 10⁷.
    public var centerLonE7: Int32 = 0
    /// Center latitude × 10⁷.
    public var centerLatE7: Int32 = 0

    /// Creates a header with default values.
    public init() {}

    /// The internal compression, when the code is known.
    public var internalCompression: Compression? { Compression(rawValue: internalCompressionCode) }
    /// The tile compression, when the code is known.
    public var tileCompression: Compression? { Compression(rawValue: tileCompressionCode) }
    /// The tile type, when the code is known.
    public var tileType: TileType? { TileType(rawValue: tileTypeCode) }

    /// The bounds in degrees.
    public var bounds: GeoBounds {
        GeoBounds(
            west: Double(minLonE7) / 1e7, south: Double(minLatE7) / 1e7, east: Double(maxLonE7) / 1e7,
            north: Double(maxLatE7) / 1e7)
    }

    /// The center in degrees.
    public var center: GeoCenter {
        GeoCenter(longitude: Double(centerLonE7) / 1e7, latitude: Double(centerLatE7) / 1e7, zoom: Int(centerZoom))
    }

    /// Degrees to the header's fixed-point form, clamped to ±`limit`.
    static func e7(_ degrees: Double, limit: Double) -> Int32 {
        guard degrees.isFinite else { return 0 }
        let clamped = Swift.min(Swift.max(degrees, -limit), limit)
        return Int32((clamped * 1e7).rounded(.toNearestOrAwayFromZero))
    }

    /// The 127 header bytes.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = Array("PMTiles".utf8)
        out.append(specVersion)
        func u64(_ v: UInt64) { for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        func i32(_ v: Int32) {
            let u = UInt32(bitPattern: v)
            for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: u >> (8 * UInt32(i)))) }
        }
        for v in [
            rootOffset, rootLength, metadataOffset, metadataLength, leafOffset, leafLength, tileDataOffset,
            tileDataLength, addressedTiles, tileEntries, tileContents,
        ] { u64(v) }
        out.append(clustered ? 1 : 0)
        out.append(internalCompressionCode)
        out.append(tileCompressionCode)
        out.append(tileTypeCode)
        out.append(minZoom)
        out.append(maxZoom)
        i32(minLonE7)
        i32(minLatE7)
        i32(maxLonE7)
        i32(maxLatE7)
        out.append(centerZoom)
        i32(centerLonE7)
        i32(centerLatE7)
        return out
    }

    /// Why header bytes were rejected.
    public enum ParseError: Error, Sendable, Hashable {
        /// Fewer than 127 bytes.
        case tooShort(Int)
        /// The first seven bytes are not `PMTiles`.
        case badMagic
        /// A spec version other than 3.
        case unsupportedVersion(UInt8)
    }

    /// Parses header bytes (only the first 127 are read). Section bounds are checked by the reader.
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> PMTilesHeader {
        guard bytes.count >= size else { throw .tooShort(bytes.count) }
        guard Array(bytes[0..<7]) == Array("PMTiles".utf8) else { throw .badMagic }
        guard bytes[7] == 3 else { throw .unsupportedVersion(bytes[7]) }
        func u64(_ at: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(bytes[at + i]) << (8 * UInt64(i)) }
            return v
        }
        func i32(_ at: Int) -> Int32 {
            var v: UInt32 = 0
            for i in 0..<4 { v |= UInt32(bytes[at + i]) << (8 * UInt32(i)) }
            return Int32(bitPattern: v)
        }
        var h = PMTilesHeader()
        h.specVersion = bytes[7]
        h.rootOffset = u64(8)
        h.rootLength = u64(16)
        h.metadataOffset = u64(24)
        h.metadataLength = u64(32)
        h.leafOffset = u64(40)
        h.leafLength = u64(48)
        h.tileDataOffset = u64(56)
        h.tileDataLength = u64(64)
        h.addressedTiles = u64(72)
        h.tileEntries = u64(80)
        h.tileContents = u64(88)
        h.clustered = bytes[96] == 1
        h.internalCompressionCode = bytes[97]
        h.tileCompressionCode = bytes[98]
        h.tileTypeCode = bytes[99]
        h.minZoom = bytes[100]
        h.maxZoom = bytes[101]
        h.minLonE7 = i32(102)
        h.minLatE7 = i32(106)
        h.maxLonE7 = i32(110)
        h.maxLatE7 = i32(114)
        h.centerZoom = bytes[118]
        h.centerLonE7 = i32(119)
        h.centerLatE7 = i32(123)
        return h
    }
}
