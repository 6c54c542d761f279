import Foundation
import KartpackCore
import KartpackJSON
import Nightly
import TileArchive

/// `catalog.json` (docs/catalog.md): the packages of a region package folder with their hashes.
package struct Catalog: Sendable, Equatable {
    /// The only layout version this build writes and reads.
    package static let version = 1
    /// The file name inside the package folder.
    package static let fileName = "catalog.json"
    /// The signature next to it.
    package static let signatureName = "catalog.json.minisig"

    /// One layer of a region's package.
    package struct Layer: Sendable, Equatable {
        package var name: String
        package var features: Int
        package var classes: [String]
    }

    /// One region's package.
    package struct Region: Sendable, Equatable {
        package var id: String
        package var name: String
        package var file: String
        package var bytes: UInt64
        package var sha256: String
        /// West, south, east, north in WGS 84 degrees.
        package var bounds: [Double]
        package var minZoom: Int
        package var maxZoom: Int
        package var layers: [Layer]
        package var built: String
        package var fingerprint: String
    }

    package var created: String
    package var kartpack: String
    package var regions: [Region]
    /// The catalog's number: one more than the previous catalog's (1 for the first; 0 when read from a catalog
    /// written before sequences). Signed with the catalog, so `verify --since N` can refuse a rollback.
    package var sequence: Int = 0

    /// The catalog as JSON text (keys in the documented order, two-space indentation).
    package var text: String {
        let regions = regions.map { r -> JSONValue in
            .object([
                ("id", .string(r.id)), ("name", .string(r.name)), ("file", .string(r.file)),
                ("bytes", .int(Int64(r.bytes))), ("sha256", .string(r.sha256)),
                ("bounds", .array(r.bounds.map { .double($0) })), ("minZoom", .int(Int64(r.minZoom))),
                ("maxZoom", .int(Int64(r.maxZoom))),
                (
                    "layers",
                    .array(
                        r.layers.map { l in
                            .object([
                                ("name", .string(l.name)), ("features", .int(Int64(l.features))),
                                ("classes", .array(l.classes.map { .string($0) })),
                            ])
                        })
                ),
                ("built", .string(r.built)), ("fingerprint", .string(r.fingerprint)),
            ])
        }
        let root = JSONValue.object([
            ("catalogVersion", .int(Int64(Self.version))), ("sequence", .int(Int64(sequence))),
            ("created", .string(created)),
            ("kartpack", .string(kartpack)), ("regions", .array(regions)),
        ])
        return JSONWriter.text(root, format: .pretty)
    }

    /// Parses a catalog; the messages name what is wrong.
    package static func parse(_ bytes: [UInt8]) throws(CatalogError) -> Catalog {
        let root: JSONValue
        do { root = try JSONParser.parse(bytes) } catch { throw .invalid("not JSON: \(error.description)") }
        guard root["catalogVersion"]?.intValue == Int64(version) else {
            throw .invalid("catalogVersion is not \(version)")
        }
        guard let created = root["created"]?.stringValue, let kartpack = root["kartpack"]?.stringValue,
            let list = root["regions"]?.arrayValue
        else { throw .invalid("created, kartpack or regions is missing") }
        var regions: [Region] = []
        for (i, r) in list.enumerated() {
            func string(_ k: String) throws(CatalogError) -> String {
                guard let s = r[k]?.stringValue else { throw .invalid("regions[\(i)].\(k) is not a string") }
                return s
            }
            func int(_ k: String) throws(CatalogError) -> Int64 {
                guard let v = r[k]?.intValue, v >= 0 else { throw .invalid("regions[\(i)].\(k) is not a count") }
                return v
            }
            guard let b = r["bounds"]?.arrayValue?.compactMap(\.doubleValue), b.count == 4 else {
                throw .invalid("regions[\(i)].bounds is not 4 numbers")
            }
            var layers: [Layer] = []
            for l in r["layers"]?.arrayValue ?? [] {
                guard let name = l["name"]?.stringValue, let n = l["features"]?.intValue else {
                    throw .invalid("regions[\(i)].layers has an entry without name or features")
                }
                layers.append(
                    Layer(
                        name: name, features: Int(n),
                        classes: (l["classes"]?.arrayValue ?? []).compactMap(\.stringValue)))
            }
            regions.append(
                Region(
                    id: try string("id"), name: try string("name"), file: try string("file"),
                    bytes: UInt64(try int("bytes")),
                    sha256: try string("sha256"), bounds: b, minZoom: Int(try int("minZoom")),
                    maxZoom: Int(try int("maxZoom")), layers: layers, built: try string("built"),
                    fingerprint: try string("fingerprint")))
        }
        let sequence = root["sequence"].map { $0.intValue ?? -1 } ?? 0
        guard sequence >= 0 else {
            throw .invalid("sequence is not a count")
        }
        return Catalog(created: created, kartpack: kartpack, regions: regions, sequence: Int(sequence))
    }

    /// The catalog in `folder`, nil when there is none; throws for one that cannot be read or parsed.
    package static func read(folder: String) throws -> Catalog? {
        let path = folder + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let bytes = try RegularFile.read(path, maxBytes: 256 << 20)
        do throws(CatalogError) {
            return try parse(bytes)
        } catch {
            throw CatalogError.invalid("\(path): \(error.description)")
        }
    }
}

/// A catalog that cannot be read.
package enum CatalogError: KartpackError, Equatable {
    case invalid(String)

    package var exitCode: ExitCode { .dataError }
    package var description: String {
        switch self {
        case .invalid(let m): "catalog: \(m)"
        }
    }
}

extension Catalog.Region {
    /// A region's entry from its package: size, hash, and what the package's metadata says (bounds, zooms,
    /// layers with their feature counts and classes).
    package static func describe(
        id: String, name: String, file: String, path: String, built: String, fingerprint: String
    ) throws -> Catalog.Region {
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
        var layers: [Catalog.Layer] = []
        let summary = meta("kartpack")?.stringValue.flatMap { try? JSONParser.parse($0) }
        for (layerName, l) in summary?["layers"]?.objectMembers ?? [] {
            let classes = (l["classes"]?.objectMembers ?? []).map(\.key).sorted {
                $0.utf8.lexicographicallyPrecedes($1.utf8)
            }
            layers.append(Catalog.Layer(name: layerName, features: Int(l["features"]?.intValue ?? 0), classes: classes))
        }
        return Catalog.Region(
            id: id, name: name, file: file, bytes: digest.bytes, sha256: digest.sha256, bounds: bounds,
            minZoom: minZoom, maxZoom: maxZoom, layers: layers, built: built, fingerprint: fingerprint)
    }
}
