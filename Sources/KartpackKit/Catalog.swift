import Checksum
import Foundation
import KartpackJSON

/// A `catalog.json` of downloadable region packages (written by `kartpack package`):
///
/// ```json
/// {"catalogVersion": 1, "created": "2026-12-01T12:00:00Z", "kartpack": "0.9.0",
///  "regions": [{"id": "vannas", "name": "Vännäs", "file": "vannas.pmtiles", "bytes": 123456,
///    "sha256": "…64 hex…", "bounds": [19.4, 63.8, 20.0, 64.1], "minZoom": 8, "maxZoom": 14,
///    "layers": [{"name": "avdelningar", "features": 412, "classes": ["stand"]}],
///    "built": "2026-12-01T11:58:00Z", "fingerprint": "…"}]}
/// ```
///
/// Every member is checked for its type and range; a region `file` must be a plain relative path below the
/// catalog (no `..`, no absolute path, no URL scheme, no backslash). Members not in the schema are ignored, so
/// later catalog versions can add some; a different `catalogVersion` is refused.
public struct Catalog: Sendable {
    /// `catalogVersion` (always 1).
    public var version: Int
    /// When the catalog was written.
    public var created: Date
    /// `sequence`: one more than the previous catalog's in the same folder (signed with it); nil in catalogs
    /// written before sequences. A client that remembers the last it accepted refuses one not newer (a rollback).
    public var sequence: Int?
    /// The Kartpack version that wrote it.
    public var kartpackVersion: String
    /// The regions, in file order.
    public var regions: [CatalogRegion]
    /// The folder the catalog lies in; region files are relative to it.
    public var folder: URL
    /// The catalog's bytes as read (what a signature signs).
    public var bytes: Data

    /// The largest catalog read, and the most regions (`Limits.client`).
    public static let maxBytes = 16 << 20
    public static let maxRegions = 100_000

    /// How large a catalog a reader accepts.
    public struct Limits: Sendable, Hashable {
        /// The most bytes.
        public var maxBytes: Int
        /// The most regions.
        public var maxRegions: Int
        /// What a client reads by default: 16 MiB, 100,000 regions.
        public static let client = Limits(maxBytes: Catalog.maxBytes, maxRegions: Catalog.maxRegions)
        /// What the producer reads back of its own catalogs (`kartpack package`, `verify`): 256 MiB, any number
        /// of regions, so a national register's catalog is never refused by the job that wrote it.
        public static let producer = Limits(maxBytes: 256 << 20, maxRegions: Int.max)

        /// Limits of `maxBytes` bytes and `maxRegions` regions.
        public init(maxBytes: Int, maxRegions: Int) {
            self.maxBytes = maxBytes
            self.maxRegions = maxRegions
        }
    }

    /// A catalog to write (`kartpack package`): `bytes` is its `text`, `version` 1.
    public init(created: Date, sequence: Int?, kartpackVersion: String, regions: [CatalogRegion], folder: URL) {
        version = 1
        self.created = created
        self.sequence = sequence
        self.kartpackVersion = kartpackVersion
        self.regions = regions
        self.folder = folder
        bytes = Data()
        bytes = Data(text.utf8)
    }

    /// Reads and checks a catalog file.
    /// - Throws: `cannotOpen` when the file cannot be read, `invalidCatalog` naming the member that breaks the schema.
    public init(contentsOf url: URL, limits: Limits = .client) throws(KartpackKitError) {
        let data = try StyleFolderFile.bytes(url, maxBytes: limits.maxBytes)
        try self.init(data: data, folder: url.deletingLastPathComponent(), name: url.path, limits: limits)
    }

    /// Checks catalog bytes; `folder` is where region files are resolved, `name` names the catalog in errors.
    public init(data: Data, folder: URL, name: String = "catalog.json", limits: Limits = .client)
        throws(KartpackKitError)
    {
        let json: JSONValue
        do {
            json = try JSONParser.parse(
                [UInt8](data),
                options: JSONParseOptions(maxDepth: 16, maxBytes: limits.maxBytes, duplicateKeys: .reject))
        } catch {
            throw .invalidCatalog(path: name, reason: "not JSON: \(error)")
        }
        let reader = CatalogReader(name: name)
        let root = try reader.object(json, "catalog")
        let v = try reader.int(root, "catalogVersion", 0...Int64.max)
        guard v == 1 else {
            throw .invalidCatalog(path: name, reason: "catalogVersion \(v) is not supported (1 is)")
        }
        version = 1
        sequence = root["sequence"] == nil ? nil : Int(try reader.int(root, "sequence", 0...Int64.max))
        created = try reader.date(root, "created")
        kartpackVersion = try reader.string(root, "kartpack")
        let list = try reader.array(root, "regions")
        guard list.count <= limits.maxRegions else {
            throw .invalidCatalog(path: name, reason: "more than \(limits.maxRegions) regions")
        }
        var regions: [CatalogRegion] = []
        var ids = Set<String>()
        for (i, r) in list.enumerated() {
            let region = try reader.region(r, at: "regions[\(i)]")
            guard ids.insert(region.id).inserted else {
                throw .invalidCatalog(path: name, reason: "regions[\(i)].id \"\(region.id)\" is used twice")
            }
            regions.append(region)
        }
        self.regions = regions
        self.folder = folder
        bytes = data
    }

    /// The region with this id.
    public func region(id: String) -> CatalogRegion? { regions.first { $0.id == id } }

    /// The regions whose bounds hold the point (edges included).
    public func regions(covering point: GeoCoordinate) -> [CatalogRegion] {
        regions.filter { $0.bounds.contains(point) }
    }

    /// The regions whose bounds hold the whole box.
    public func regions(covering box: GeoRegion) -> [CatalogRegion] {
        regions.filter { $0.bounds.contains(box) }
    }

    /// The regions whose bounds overlap the box (touching edges count).
    public func regions(intersecting box: GeoRegion) -> [CatalogRegion] {
        regions.filter {
            $0.bounds.west <= box.east && box.west <= $0.bounds.east && $0.bounds.south <= box.north
                && box.south <= $0.bounds.north
        }
    }

    /// Where the region's package lies next to the catalog.
    public func fileURL(of region: CatalogRegion) -> URL {
        folder.appendingPathComponent(region.file)
    }

    /// Checks a downloaded package against its catalog entry: the size first, then the SHA-256 of the bytes,
    /// read in 1 MiB pieces (memory stays bounded whatever the file size).
    /// - Throws: `cannotOpen` when the file cannot be read, `verificationFailed` when its size or digest differs.
    public func verify(_ region: CatalogRegion, file: URL) throws(KartpackKitError) {
        let path = file.path
        guard file.isFileURL else {
            throw .cannotOpen(path: file.absoluteString, reason: "not a file: URL")
        }
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: file) } catch {
            throw .cannotOpen(path: path, reason: "no such file or no permission")
        }
        defer { try? handle.close() }
        var hash = SHA256()
        var count: Int64 = 0
        while true {
            let piece: Data?
            do { piece = try handle.read(upToCount: 1 << 20) } catch {
                throw .cannotOpen(path: path, reason: "read failed after \(count) bytes")
            }
            guard let piece, !piece.isEmpty else { break }
            count += Int64(piece.count)
            guard count <= region.bytes else {
                throw .verificationFailed(
                    path: path, reason: "larger than the catalog's \(region.bytes) bytes")
            }
            piece.withUnsafeBytes { hash.update($0) }
        }
        guard count == region.bytes else {
            throw .verificationFailed(
                path: path, reason: "\(count) bytes, the catalog says \(region.bytes)")
        }
        let digest = hash.finalizeHex()
        guard digest == region.sha256 else {
            throw .verificationFailed(
                path: path, reason: "SHA-256 \(digest), the catalog says \(region.sha256)")
        }
    }
}
