import Foundation
import KartpackCore
/// The description of a tile package printed by `kartpack inspect OUT.pmtiles|OUT.mbtiles`.
/// Keys are documented in `docs/inspect.md`.
package struct PackageInspection: Codable, Sendable {
    /// The PMTiles header (absent for MBTiles).
    package struct Header: Codable, Sendable {
        package var specVersion: Int
        package var rootDirectoryBytes: Int
        package var metadataBytes: Int
        package var leafDirectoryBytes: Int
        package var tileDataBytes: Int
        package var addressedTiles: Int
        package var tileEntries: Int
        package var tileContents: Int
        package var clustered: Bool
        package var internalCompression: Int
        package var tileCompression: Int
        package var tileType: Int
        package var minZoom: Int
        package var maxZoom: Int
        package var bounds: Bounds
        package var center: [Double]
    }
    /// One entry of `vector_layers`.
    package struct Layer: Codable, Sendable {
        package var id: String
        package var fields: [String: String]
        package var minzoom: Int?
        package var maxzoom: Int?
    }
    /// Tiles at one zoom level.
    package struct Zoom: Codable, Sendable {
        package var zoom: Int
        package var tiles: Int
        package var bytes: Int
    }
    /// A tile and its compressed size.
    package struct TileSize: Codable, Sendable {
        package var tile: String
        package var bytes: Int
    }

    package var kartpack: String
    package var path: String
    package var format: String
    package var fileBytes: Int
    package var header: Header?
    /// Metadata values as text (non-string JSON values as compact JSON).
    package var metadata: [String: String]
    package var layers: [Layer]
    package var zooms: [Zoom]
    package var tiles: Int
    package var largestTiles: [TileSize]
}

/// One decoded tile, printed by `kartpack inspect PACKAGE --tile Z/X/Y`.
package struct TileInspection: Encodable, Sendable {
    /// A decoded feature.
    package struct Feature: Encodable, Sendable {
        package var id: UInt64?
        package var type: String
        package var properties: [String: JSONScalar]
        /// Parts (points, lines or rings) as `[x, y]` pairs: tile coordinates, or longitude/latitude with `--wgs84`.
        package var geometry: [[[Double]]]
        /// For polygons: whether each part is an exterior ring.
        package var exterior: [Bool]?
    }
    /// A decoded layer.
    package struct Layer: Encodable, Sendable {
        package var name: String
        package var version: Int
        package var extent: Int
        package var features: [Feature]
    }
    package var tile: String
    package var bytes: Int
    package var coordinates: String
    package var layers: [Layer]
    package var warnings: [String]
}

/// A property value written as plain JSON.
package enum JSONScalar: Encodable, Sendable, Hashable {
    case string(String), int(Int64), uint(UInt64), double(Double), bool(Bool)

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .int(let v): try c.encode(v)
        case .uint(let v): try c.encode(v)
        case .double(let v): try c.encode(v)
        case .bool(let v): try c.encode(v)
        }
    }
}

/// Errors reading a package for inspection.
package enum PackageInspectionError: KartpackError {
    case notFound(String)
    case unreadable(path: String, reason: String)
    case noSuchTile(String)
    case badTile(tile: String, reason: String)

    package var exitCode: ExitCode {
        switch self {
        case .notFound: .noInput
        case .unreadable, .badTile: .dataError
        case .noSuchTile: .usage
        }
    }

    package var description: String {
        switch self {
        case .notFound(let p): "\(p): no such file"
        case .unreadable(let p, let r): "\(p): \(r)"
        case .noSuchTile(let t): "tile \(t) is not in the package"
        case .badTile(let t, let r): "tile \(t): \(r)"
        }
    }
}
