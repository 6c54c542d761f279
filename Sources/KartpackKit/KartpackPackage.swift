import Foundation
import KartpackCore
import KartpackJSON
import PMTiles

/// A PMTiles package opened for reading by an app: header, metadata, layers and classes, and feature queries.
///
/// Opening reads the 127-byte header, the root directory (at most 16 KiB in kartpack packages) and the metadata;
/// tiles and leaf directories are read later, one bounded ranged read (`pread`) at a time: the file is never
/// read whole. Every offset, length and size read from the file is checked against the file and against caps, so
/// a damaged or hostile file gives a ``KartpackKitError``, never a trap.
///
/// A package may be used from several threads: reads are serialised internally.
public final class KartpackPackage: @unchecked Sendable {
    /// The file.
    public let url: URL
    /// The package name (`name` metadata), or the file name without extension.
    public let name: String
    /// `description` metadata, if any.
    public let packageDescription: String?
    /// `attribution` metadata, if any.
    public let attribution: String?
    /// `version` metadata, if any.
    public let version: String?
    /// `generator` metadata (e.g. `kartpack 0.1.0`), if any.
    public let generator: String?
    /// The header's lowest zoom.
    public let minZoom: Int
    /// The header's highest zoom: queries at a higher zoom read these tiles (overzoom).
    public let maxZoom: Int
    /// The header's data bounds.
    public let bounds: GeoRegion
    /// The header's default view.
    public let center: GeoCoordinate
    /// The header's default zoom.
    public let centerZoom: Int
    /// The layers in metadata (`vector_layers`) order.
    public let layers: [PackageLayer]
    /// The metadata JSON text, as stored (decompressed).
    public let metadataText: String
    /// The file's size in bytes.
    public let fileSize: UInt64

    let reader: PMTilesReader
    let lock = NSLock()
    /// Caps for one query.
    public let limits: Limits

    /// Caps that keep a query's work bounded.
    public struct Limits: Sendable, Hashable {
        /// Most tiles one query reads (a region at a zoom covering more is refused).
        public var maxTilesPerQuery = 1_024
        /// Most decoded features one query reads, same-id pieces counted apiece (a query over it is refused).
        public var maxFeaturesPerQuery = 5_000_000

        /// The default caps.
        public init() {}
    }

    /// Opens a package.
    /// - Parameter url: a `file:` URL of a PMTiles v3 file with MVT tiles.
    /// - Throws: ``KartpackKitError/cannotOpen(path:reason:)``, ``KartpackKitError/invalidPackage(path:reason:)``
    ///   or ``KartpackKitError/unsupported(path:reason:)``.
    public convenience init(contentsOf url: URL) throws(KartpackKitError) {
        try self.init(contentsOf: url, limits: Limits())
    }

    /// Opens a package with caps of your choice.
    public init(contentsOf url: URL, limits: Limits) throws(KartpackKitError) {
        guard url.isFileURL else { throw .cannotOpen(path: url.absoluteString, reason: "not a file URL") }
        let path = url.path
        self.url = url
        self.limits = limits
        let reader: PMTilesReader
        do throws(TileArchiveError) {
            reader = try PMTilesReader(path: path)
        } catch {
            throw KartpackPackage.kitError(error, path: path)
        }
        let h = reader.header
        guard h.tileType == .mvt || h.tileTypeCode == 0 else {
            throw .unsupported(path: path, reason: "tile type \(h.tileTypeCode) is not MVT")
        }
        if case .unsupported(let code) = reader.tileCompression {
            throw .unsupported(path: path, reason: "tile compression code \(code)")
        }
        guard h.minZoom <= h.maxZoom, Int(h.maxZoom) <= TileCoordinate.maxZoom else {
            throw .invalidPackage(path: path, reason: "header zooms \(h.minZoom)...\(h.maxZoom)")
        }
        let metadata: JSONValue
        do throws(TileArchiveError) {
            metadataText = h.metadataLength > 0 ? try reader.metadataText() : "{}"
            metadata = try reader.metadata()
        } catch {
            throw KartpackPackage.kitError(error, path: path)
        }
        guard metadata.objectMembers != nil else {
            throw .invalidPackage(path: path, reason: "metadata is not an object")
        }
        self.reader = reader
        fileSize = reader.fileSize
        minZoom = Int(h.minZoom)
        maxZoom = Int(h.maxZoom)
        let b = h.bounds
        bounds = GeoRegion(west: b.west, south: b.south, east: b.east, north: b.north)
        center = GeoCoordinate(longitude: h.center.longitude, latitude: h.center.latitude)
        centerZoom = Int(h.centerZoom)
        name = metadata["name"]?.stringValue ?? url.deletingPathExtension().lastPathComponent
        packageDescription = metadata["description"]?.stringValue
        attribution = metadata["attribution"]?.stringValue
        version = metadata["version"]?.stringValue
        generator = metadata["generator"]?.stringValue
        layers = PackageMetadataParser.layers(metadata, zooms: minZoom...maxZoom)
    }

    /// The layer with this name, or nil.
    public func layer(named name: String) -> PackageLayer? {
        layers.first { $0.name == name }
    }

    /// The classes of a layer written at `zoom` (from `classes_by_zoom`; empty for an unknown layer).
    public func classes(layer: String, zoom: Int) -> [String] {
        self.layer(named: layer)?.classes(atZoom: zoom) ?? []
    }

    /// The decompressed MVT bytes of one tile, or nil when the package has none there.
    /// - Throws: ``KartpackKitError/invalidPackage(path:reason:)`` on damaged directories or tile data.
    public func tileData(z: Int, x: Int, y: Int) throws(KartpackKitError) -> [UInt8]? {
        guard let t = TileCoordinate(validZ: z, x: x, y: y) else {
            throw .invalidRequest("tile \(z)/\(x)/\(y) is outside the tile grid")
        }
        lock.lock()
        defer { lock.unlock() }
        do throws(TileArchiveError) {
            return try reader.tile(t)
        } catch {
            throw KartpackPackage.kitError(error, path: url.path)
        }
    }

    static func kitError(_ e: TileArchiveError, path: String) -> KartpackKitError {
        switch e {
        case .cannotOpen(let p, let errno): .cannotOpen(path: p, reason: String(cString: strerror(errno)))
        case .unsupported(let p, let reason): .unsupported(path: p, reason: reason)
        case .invalidArchive(let p, let reason): .invalidPackage(path: p, reason: reason)
        case .io(let op, let p, let errno): .cannotOpen(path: p, reason: "\(op): \(String(cString: strerror(errno)))")
        default: .invalidPackage(path: path, reason: e.description)
        }
    }
}
