import Foundation
import KartpackCore
import VectorTile

/// The description of a tile package printed by `kartpack inspect OUT.pmtiles|OUT.mbtiles`.
/// Keys are documented in `docs/inspect.md`.
public struct PackageInspection: Codable, Sendable {
    /// The PMTiles header (absent for MBTiles).
    public struct Header: Codable, Sendable {
        public var specVersion: Int
        public var rootDirectoryBytes: Int
        public var metadataBytes: Int
        public var leafDirectoryBytes: Int
        public var tileDataBytes: Int
        public var addressedTiles: Int
        public var tileEntries: Int
        public var tileContents: Int
        public var clustered: Bool
        public var internalCompression: Int
        public var tileCompression: Int
        public var tileType: Int
        public var minZoom: Int
        public var maxZoom: Int
        public var bounds: Bounds
        public var center: [Double]
    }
    /// One entry of `vector_layers`.
    public struct Layer: Codable, Sendable {
        public var id: String
        public var fields: [String: String]
        public var minzoom: Int?
        public var maxzoom: Int?
    }
    /// Tiles at one zoom level.
    public struct Zoom: Codable, Sendable {
        public var zoom: Int
        public var tiles: Int
        public var bytes: Int
    }
    /// A tile and its compressed size.
    public struct TileSize: Codable, Sendable {
        public var tile: String
        public var bytes: Int
    }

    public var kartpack: String
    public var path: String
    public var format: String
    public var fileBytes: Int
    public var header: Header?
    /// Metadata values as text (non-string JSON values as compact JSON).
    public var metadata: [String: String]
    public var layers: [Layer]
    public var zooms: [Zoom]
    public var tiles: Int
    public var largestTiles: [TileSize]
}

/// One decoded tile, printed by `kartpack inspect PACKAGE --tile Z/X/Y`.
public struct TileInspection: Encodable, Sendable {
    /// A decoded feature.
    public struct Feature: Encodable, Sendable {
        public var id: UInt64?
        public var type: String
        public var properties: [String: JSONScalar]
        /// Parts (points, lines or rings) as `[x, y]` pairs: tile coordinates, or longitude/latitude with `--wgs84`.
        public var geometry: [[[Double]]]
        /// For polygons: whether each part is an exterior ring.
        public var exterior: [Bool]?
    }
    /// A decoded layer.
    public struct Layer: Encodable, Sendable {
        public var name: String
        public var version: Int
        public var extent: Int
        public var features: [Feature]
    }
    public var tile: String
    public var bytes: Int
    public var coordinates: String
    public var layers: [Layer]
    public var warnings: [String]
}

/// A property value written as plain JSON.
public enum JSONScalar: Encodable, Sendable, Hashable {
    case string(String), int(Int64), uint(UInt64), double(Double), bool(Bool)

    public func encode(to encoder: any Encoder) throws {
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
public enum PackageInspectionError: KartpackError {
    case notFound(String)
    case unreadable(path: String, reason: String)
    case noSuchTile(String)
    case badTile(tile: String, reason: String)

    public var exitCode: ExitCode {
        switch self {
        case .notFound: .noInput
        case .unreadable, .badTile: .dataError
        case .noSuchTile: .usage
        }
    }

    public var description: String {
        switch self {
        case .notFound(let p): "\(p): no such file"
        case .unreadable(let p, let r): "\(p): \(r)"
        case .noSuchTile(let t): "tile \(t) is not in the package"
        case .badTile(let t, let r): "tile \(t): \(r)"
        }
    }
}
