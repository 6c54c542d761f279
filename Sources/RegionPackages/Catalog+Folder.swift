import Foundation
import KartpackCore
import KartpackJSON
import KartpackKit
import Nightly
import TileArchive

/// `catalog.json` (docs/catalog.md) has one model, KartpackKit's `Catalog`: `kartpack package` writes it with
/// `Catalog.text` and reads last night's back with the same strict reader a client uses (with the producer's
/// limits), so what the producer accepts and what a tablet accepts cannot drift apart.
extension Catalog {
    /// The file name inside the package folder.
    package static let fileName = "catalog.json"
    /// The signature next to it.
    package static let signatureName = "catalog.json.minisig"

    /// The catalog in `folder`, nil when there is none; throws `CatalogError` for one that cannot be read or
    /// breaks the schema (the message names the file and the member).
    package static func read(folder: String) throws(CatalogError) -> Catalog? {
        let path = folder + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try Catalog(contentsOf: URL(fileURLWithPath: path), limits: .producer)
        } catch {
            throw .invalid(error.description)
        }
    }
}

/// A catalog that cannot be read: the reader's message names the file and the member
/// (`… catalog.json is not a valid catalog: regions[3].sha256: must be 64 hex digits`).
package enum CatalogError: KartpackError, Equatable {
    case invalid(String)

    package var exitCode: ExitCode { .dataError }
    package var description: String {
        switch self {
        case .invalid(let m): m
        }
    }
}

extension CatalogRegion {
    /// A region's entry from its package: size, hash, and what the package's metadata says (bounds, zooms,
    /// layers with their feature counts and classes).
    package static func describe(
        id: String, name: String, file: String, path: String, built: Date, fingerprint: String
    ) throws -> CatalogRegion {
        let digest = try FileDigest.sha256(path: path)
        let archive = try openTileArchive(path: path)
        // PMTiles keeps zooms and bounds in its header: they count where the JSON metadata lacks them.
        var members = try archive.metadata().objectMembers ?? []
        for (k, v) in archive.headerMetadata where !members.contains(where: { $0.key == k }) { members.append((k, v)) }
        // The one reader of package metadata (PMTiles' `PackageMetadata`), as clients, styles, inspect and extract.
        let parsed = PackageMetadata(parsing: .object(members))
        let box = parsed.bounds ?? GeoBounds(west: -180, south: -85.0511, east: 180, north: 85.0511)
        let layers = parsed.runLayers.map { run in
            Layer(
                name: run.id, features: run.features ?? 0,
                classes: (run.classes ?? []).map(\.name).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        }
        let minZoom = parsed.minZoom ?? 0
        let maxZoom = parsed.maxZoom ?? 0
        return CatalogRegion(
            id: id, name: name, file: file, bytes: Int64(digest.bytes), sha256: digest.sha256,
            bounds: GeoRegion(west: box.west, south: box.south, east: box.east, north: box.north),
            minZoom: minZoom, maxZoom: maxZoom, layers: layers, built: built, fingerprint: fingerprint)
    }
}
