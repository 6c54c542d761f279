import KartpackCore
import KartpackJSON

/// A package opened for reading, whatever its container: what `inspect`, `style`, `preview` and the fuzzer use.
///
/// Every read is bounded for untrusted files. Tiles come back decompressed: the reader owns its format's tile
/// compression.
public protocol TileArchiveReading: AnyObject {
    /// The path as given.
    var path: String { get }
    /// The container.
    var format: ArchiveFormat { get }
    /// How tiles are stored.
    var tileCompression: TileCompression { get }
    /// The package metadata as one object: PMTiles' JSON metadata, or MBTiles' `json` row merged with its plain
    /// rows (the `json` members first).
    func metadata() throws(TileArchiveError) -> JSONValue
    /// What the container stores outside its metadata, as metadata members (PMTiles: `minzoom`, `maxzoom`,
    /// `bounds`, `center` from the header; MBTiles: none).
    var headerMetadata: [(key: String, value: JSONValue)] { get }
    /// The stored (still compressed) bytes of a tile, or nil when the package has none there.
    func storedTile(_ tile: TileCoordinate) throws(TileArchiveError) -> [UInt8]?
    /// Visits every stored tile in the archive's order with its stored bytes; `body` returns false to stop.
    func forEachStoredTile(_ body: (TileCoordinate, [UInt8]) -> Bool) throws(TileArchiveError)
}

extension TileArchiveReading {
    /// The largest decompressed tile accepted.
    public static var maxTileBytes: Int { 64 << 20 }

    /// The decompressed (MVT) bytes of a tile, or nil when the package has none there.
    public func tile(_ tile: TileCoordinate) throws(TileArchiveError) -> [UInt8]? {
        guard let stored = try storedTile(tile), !stored.isEmpty else { return nil }
        return try tileData(stored)
    }

    /// Undoes the archive's tile compression on stored bytes.
    public func tileData(_ stored: [UInt8]) throws(TileArchiveError) -> [UInt8] {
        try tileCompression.decompress(stored, maxBytes: Self.maxTileBytes, path: path)
    }
}
