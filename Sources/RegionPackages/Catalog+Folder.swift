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
        let metadata = try archive.metadata()
        let header = archive.headerMetadata
        let meta: (String) -> JSONValue? = { k in metadata[k] ?? header.first { $0.key == k }?.value }
        var bounds = [-180.0, -85.0511, 180.0, 85.0511]
        if let text = meta("bounds")?.stringValue {
            let parts = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            if parts.count == 4 { bounds = parts }
        } else if let list = meta("bounds")?.arrayValue?.compactMap(\.doubleValue), list.count == 4 {
            bounds = list
        }
        let minZoom = Int(meta("minzoom").flatMap { $0.intValue ?? $0.stringValue.flatMap { Int64($0) } } ?? 0)
        let maxZoom = Int(meta("maxzoom").flatMap { $0.intValue ?? $0.stringValue.flatMap { Int64($0) } } ?? 0)
        var layers: [Layer] = []
        let summary = meta("kartpack")?.stringValue.flatMap { try? JSONParser.parse($0) }
        for (layerName, l) in summary?["layers"]?.objectMembers ?? [] {
            let classes = (l["classes"]?.objectMembers ?? []).map(\.key).sorted {
                $0.utf8.lexicographicallyPrecedes($1.utf8)
            }
            layers.append(Layer(name: layerName, features: Int(l["features"]?.intValue ?? 0), classes: classes))
        }
        return CatalogRegion(
            id: id, name: name, file: file, bytes: Int64(digest.bytes), sha256: digest.sha256,
            bounds: GeoRegion(west: bounds[0], south: bounds[1], east: bounds[2], north: bounds[3]),
            minZoom: minZoom, maxZoom: maxZoom, layers: layers, built: built, fingerprint: fingerprint)
    }
}
