import Foundation
import KartpackCore
import KartpackJSON
import TileArchive
import VectorTile

/// Reads PMTiles and MBTiles packages for `kartpack inspect`: header, metadata, layers, tiles per zoom, and
/// single decoded tiles. Every read is bounded; garbage gives an error, never a crash.
package enum PackageInspector {
    /// True when `path` names a package rather than a Shapefile.
    package static func isPackage(_ path: String) -> Bool { ArchiveFormat.from(path: path) != nil }

    /// Describes a package.
    package static func inspect(path: String) throws(PackageInspectionError) -> PackageInspection {
        guard FileManager.default.fileExists(atPath: path) else { throw .notFound(path) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        do throws(TileArchiveError) {
            let archive = try openTileArchive(path: path)
            var perZoom: [Int: (tiles: Int, bytes: Int)] = [:]
            var sizes: [(TileCoordinate, Int)] = []
            var header: PackageInspection.Header?
            if let pmtiles = archive as? PMTilesReader {
                header = Self.header(pmtiles.header)
                try countEntries(pmtiles, perZoom: &perZoom, sizes: &sizes)
            } else {
                try archive.forEachStoredTile { key, data in
                    perZoom[key.z, default: (0, 0)].tiles += 1
                    perZoom[key.z, default: (0, 0)].bytes += data.count
                    sizes.append((key, data.count))
                    return true
                }
            }
            let meta = try archive.metadata()
            var metadata: [String: String] = [:]
            for (k, v) in meta.objectMembers ?? [] {
                metadata[k] = v.stringValue ?? ((try? v.serialized()) ?? "")
            }
            return summary(
                path: path, format: archive.format.rawValue, size: size, header: header, metadata: metadata,
                layers: vectorLayers(meta), perZoom: perZoom, sizes: sizes)
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    /// Tiles and bytes per zoom from the PMTiles directories, without reading tile data.
    private static func countEntries(
        _ reader: PMTilesReader, perZoom: inout [Int: (tiles: Int, bytes: Int)], sizes: inout [(TileCoordinate, Int)]
    ) throws(TileArchiveError) {
        var failure: TileArchiveError?
        try reader.forEachEntry { e in
            // A run addresses `runLength` consecutive tile ids with one blob: count it per zoom in one step (a run of
            // 2^32 - 1 tiles must not mean 2^32 - 1 iterations), splitting only where it crosses a zoom boundary.
            let first = e.entry.tileID
            let (last, overflow) = first.addingReportingOverflow(UInt64(e.entry.runLength) - 1)
            guard e.entry.runLength > 0, !overflow, let key = PMTilesTileID.coordinate(first),
                let lastKey = PMTilesTileID.coordinate(last)
            else {
                failure = .invalidMetadata("tile ids \(first)+\(e.entry.runLength) out of range")
                return false
            }
            sizes.append((key, Int(e.entry.length)))
            for z in key.z...lastKey.z {
                let lo = max(first, zoomBase(z)), hi = min(last, zoomBase(z + 1) - 1)
                let count = Int(clamping: hi - lo + 1)
                perZoom[z, default: (0, 0)].tiles &+= count
                perZoom[z, default: (0, 0)].bytes &+= Int(
                    clamping: UInt64(e.entry.length).multipliedReportingOverflow(by: UInt64(count)).partialValue)
            }
            return true
        }
        if let failure { throw failure }
    }

    private static func header(_ h: PMTilesHeader) -> PackageInspection.Header {
        PackageInspection.Header(
            specVersion: Int(h.specVersion), rootDirectoryBytes: Int(clamping: h.rootLength),
            metadataBytes: Int(clamping: h.metadataLength), leafDirectoryBytes: Int(clamping: h.leafLength),
            tileDataBytes: Int(clamping: h.tileDataLength),
            addressedTiles: Int(clamping: h.addressedTiles), tileEntries: Int(clamping: h.tileEntries),
            tileContents: Int(clamping: h.tileContents),
            clustered: h.clustered, internalCompression: Int(h.internalCompressionCode),
            tileCompression: Int(h.tileCompressionCode), tileType: Int(h.tileTypeCode), minZoom: Int(h.minZoom),
            maxZoom: Int(h.maxZoom),
            bounds: Bounds(
                minX: Double(h.minLonE7) / 1e7, minY: Double(h.minLatE7) / 1e7,
                maxX: Double(h.maxLonE7) / 1e7, maxY: Double(h.maxLatE7) / 1e7),
            center: [Double(h.centerLonE7) / 1e7, Double(h.centerLatE7) / 1e7, Double(h.centerZoom)])
    }

    /// The first PMTiles tile id of zoom `z`: (4^z - 1) / 3 (z ≤ 32).
    private static func zoomBase(_ z: Int) -> UInt64 { z >= 32 ? UInt64.max : ((1 << (2 * UInt64(z))) - 1) / 3 }

    private static func summary(
        path: String, format: String, size: Int, header: PackageInspection.Header?, metadata: [String: String],
        layers: [PackageInspection.Layer], perZoom: [Int: (tiles: Int, bytes: Int)], sizes: [(TileCoordinate, Int)]
    ) -> PackageInspection {
        let zooms = perZoom.keys.sorted().map {
            PackageInspection.Zoom(zoom: $0, tiles: perZoom[$0]?.tiles ?? 0, bytes: perZoom[$0]?.bytes ?? 0)
        }
        let largest = sizes.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.prefix(10)
            .map { PackageInspection.TileSize(tile: $0.0.description, bytes: $0.1) }
        return PackageInspection(
            kartpack: Kartpack.version, path: path, format: format, fileBytes: size, header: header, metadata: metadata,
            layers: layers, zooms: zooms, tiles: zooms.reduce(0) { $0 &+ $1.tiles }, largestTiles: Array(largest))
    }

    /// The `vector_layers` entries as `PackageMetadata` reads them for every client.
    private static func vectorLayers(_ metadata: JSONValue) -> [PackageInspection.Layer] {
        PackageMetadata(parsing: metadata).layers.map { l in
            PackageInspection.Layer(
                id: l.id, fields: Dictionary(l.fields.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a }),
                minzoom: l.minZoom, maxzoom: l.maxZoom)
        }
    }

    /// Decodes one tile; geometry in tile coordinates, or longitude/latitude when `wgs84` is set.
    package static func inspectTile(path: String, tile: TileCoordinate, wgs84: Bool) throws(PackageInspectionError)
        -> TileInspection
    {
        guard FileManager.default.fileExists(atPath: path) else { throw .notFound(path) }
        let archive: any TileArchiveReading
        let compressed: [UInt8]?
        do throws(TileArchiveError) {
            archive = try openTileArchive(path: path)
            compressed = try archive.storedTile(tile)
        } catch {
            throw .unreadable(path: path, reason: error.description)
        }
        guard let compressed else { throw .noSuchTile(tile.description) }
        let decoded: DecodedTile
        do {
            decoded = try MVTDecoder().decode(try archive.tileData(compressed))
        } catch {
            throw .badTile(tile: tile.description, reason: "\(error)")
        }
        var layers: [TileInspection.Layer] = []
        for l in decoded.layers {
            let transform = TileTransform(tile: tile, extent: l.extent)
            let features = l.features.map { f in
                TileInspection.Feature(
                    id: f.id, type: typeName(f.type), properties: scalars(f.properties),
                    geometry: f.geometry.parts.map { part in
                        part.map { p in
                            guard wgs84 else { return [Double(p.x), Double(p.y)] }
                            let m = transform.invert(x: Double(p.x), y: Double(p.y))
                            let ll = SphericalMercator.unproject(x: m.x, y: m.y)
                            return [(ll.longitude * 1e7).rounded() / 1e7, (ll.latitude * 1e7).rounded() / 1e7]
                        }
                    },
                    exterior: f.type == .polygon ? f.geometry.ringIsExterior : nil)
            }
            layers.append(
                TileInspection.Layer(name: l.name, version: Int(l.version), extent: l.extent, features: features))
        }
        return TileInspection(
            tile: tile.description, bytes: compressed.count, coordinates: wgs84 ? "wgs84" : "tile", layers: layers,
            warnings: decoded.warnings.map { "\($0)" })
    }

    static func typeName(_ t: MVTGeometryType) -> String {
        switch t {
        case .point: "Point"
        case .lineString: "LineString"
        case .polygon: "Polygon"
        default: "Unknown"
        }
    }

    package static func scalars(_ p: Properties) -> [String: JSONScalar] {
        var out: [String: JSONScalar] = [:]
        for (k, v) in zip(p.keys, p.values) {
            switch v {
            case .string(let s): out[k] = .string(s)
            case .int(let i): out[k] = .int(i)
            case .uint(let u): out[k] = .uint(u)
            case .double(let d): out[k] = .double(d)
            case .bool(let b): out[k] = .bool(b)
            case .null: break
            }
        }
        return out
    }
}
