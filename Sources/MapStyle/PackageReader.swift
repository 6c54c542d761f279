import Gzip
import KartpackCore
import TileArchive
import VectorTile

/// An open package: metadata and decoded tiles, for PMTiles and MBTiles alike.
final class PackageReader {
    let path: String
    let format: PackageInfo.Format
    private let pmtiles: PMTilesReader?
    private let mbtiles: MBTilesReader?
    private let decoder = MVTDecoder()
    /// Decompressed tiles are capped at this size.
    static let maxTileBytes = 64 << 20

    init(path: String) throws(MapStyleError) {
        self.path = path
        let byName = PackageInfo.format(ofPath: path)
        var pm: PMTilesReader?
        var mb: MBTilesReader?
        do throws(TileArchiveError) {
            switch byName {
            case .pmtiles?: pm = try PMTilesReader(path: path)
            case .mbtiles?: mb = try MBTilesReader(path: path)
            case nil:
                // Unknown extension: try PMTiles (a cheap header check), then MBTiles.
                do throws(TileArchiveError) {
                    pm = try PMTilesReader(path: path)
                } catch {
                    if case .cannotOpen = error { throw error }
                    mb = try MBTilesReader(path: path)
                }
            }
        } catch {
            throw PackageReader.map(error, path)
        }
        pmtiles = pm
        mbtiles = mb
        format = pm != nil ? .pmtiles : .mbtiles
    }

    static func map(_ e: TileArchiveError, _ path: String) -> MapStyleError {
        if case .cannotOpen = e { return .cannotOpenPackage(path: path, reason: e.description) }
        return .badPackage(path: path, reason: e.description)
    }

    /// The package description from its metadata.
    func info() throws(MapStyleError) -> PackageInfo {
        do throws(TileArchiveError) {
            if let pmtiles {
                var meta = try pmtiles.metadata()
                let h = pmtiles.header
                if var members = meta.objectMembers {
                    if !members.contains(where: { $0.key == "minzoom" }) {
                        members.append(("minzoom", .int(Int64(h.minZoom))))
                    }
                    if !members.contains(where: { $0.key == "maxzoom" }) {
                        members.append(("maxzoom", .int(Int64(h.maxZoom))))
                    }
                    if !members.contains(where: { $0.key == "center" }) {
                        let c = h.center
                        members.append(
                            ("center", .array([.double(c.longitude), .double(c.latitude), .int(Int64(c.zoom))])))
                    }
                    if !members.contains(where: { $0.key == "bounds" }) {
                        let b = h.bounds
                        members.append(
                            ("bounds", .array([.double(b.west), .double(b.south), .double(b.east), .double(b.north)])))
                    }
                    meta = .object(members)
                } else {
                    throw TileArchiveError.invalidArchive(path: path, reason: "the metadata is not a JSON object")
                }
                return PackageInfo(metadata: meta, path: path, format: .pmtiles)
            }
            guard let mbtiles else { throw TileArchiveError.invalidArchive(path: path, reason: "no reader") }
            var members = try mbtiles.metadataJSON()?.objectMembers ?? []
            for (name, value) in try mbtiles.metadata() where name != "json" {
                if !members.contains(where: { $0.key == name }) { members.append((name, .string(value))) }
            }
            return PackageInfo(metadata: .object(members), path: path, format: .mbtiles)
        } catch {
            throw PackageReader.map(error, path)
        }
    }

    /// Calls `body` with every stored tile's coordinate and stored bytes (PMTiles directory order, MBTiles rows),
    /// until it returns false.
    func forEachStoredTile(_ body: (TileCoordinate, [UInt8]) -> Bool) throws(MapStyleError) {
        do throws(TileArchiveError) {
            if let pmtiles {
                var failure: TileArchiveError?
                try pmtiles.forEachEntry { entry in
                    let bytes: [UInt8]
                    do throws(TileArchiveError) {
                        bytes = try pmtiles.data(for: entry)
                    } catch {
                        failure = error
                        return false
                    }
                    let k = entry.key
                    return body(TileCoordinate(z: Int(k.z), x: Int(k.x), y: Int(k.y)), bytes)
                }
                if let failure { throw failure }
            } else if let mbtiles {
                try mbtiles.forEachTile { key, bytes in
                    body(TileCoordinate(z: Int(key.z), x: Int(key.x), y: Int(key.y)), bytes)
                }
            }
        } catch {
            throw PackageReader.map(error, path)
        }
    }

    /// Decodes stored tile bytes (gunzipped when needed).
    func decode(_ stored: [UInt8], _ t: TileCoordinate) throws(MapStyleError) -> DecodedTile {
        var bytes = stored
        if stored.count >= 2, stored[0] == 0x1f, stored[1] == 0x8b {
            do throws(GzipError) {
                bytes = try Gzip.decompress(stored, maxOutput: PackageReader.maxTileBytes)
            } catch {
                throw .badPackage(path: path, reason: "tile \(t): \(error.description)")
            }
        }
        do throws(MVTDecodeError) {
            return try decoder.decode(bytes)
        } catch {
            throw .badPackage(path: path, reason: "tile \(t): \(error.description)")
        }
    }

    /// The decoded tile `z/x/y`, or nil when the package has none there.
    func tile(_ t: TileCoordinate) throws(MapStyleError) -> DecodedTile? {
        let stored: [UInt8]?
        do throws(TileArchiveError) {
            if let pmtiles {
                stored = try pmtiles.tile(z: t.z, x: t.x, y: t.y)
            } else if let mbtiles {
                stored = try mbtiles.tile(z: t.z, x: t.x, y: t.y)
            } else {
                stored = nil
            }
        } catch {
            throw PackageReader.map(error, path)
        }
        guard let stored, !stored.isEmpty else { return nil }
        var bytes = stored
        if stored.count >= 2, stored[0] == 0x1f, stored[1] == 0x8b {
            do throws(GzipError) {
                bytes = try Gzip.decompress(stored, maxOutput: PackageReader.maxTileBytes)
            } catch {
                throw .badPackage(path: path, reason: "tile \(t): \(error.description)")
            }
        }
        do throws(MVTDecodeError) {
            return try decoder.decode(bytes)
        } catch {
            throw .badPackage(path: path, reason: "tile \(t): \(error.description)")
        }
    }
}
