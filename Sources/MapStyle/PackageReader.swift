import KartpackCore
import TileArchive
import VectorTile

/// A package opened for the client side (style export, previews): its metadata as a `PackageInfo` and decoded
/// tiles. Opening and tile decompression belong to TileArchive (`openTileArchive`); this maps its errors.
struct PackageReader {
    let path: String
    private let archive: any TileArchiveReading
    private let decoder = MVTDecoder()

    init(path: String) throws(MapStyleError) {
        self.path = path
        do throws(TileArchiveError) {
            archive = try openTileArchive(path: path)
        } catch {
            throw PackageReader.map(error, path)
        }
    }

    /// Most `vector_layers` a package may list (as many as a tile may hold, `MVTDecoder.Limits.maxLayers`).
    static let maxLayers = MVTDecoder.Limits().maxLayers

    /// The container format.
    var format: ArchiveFormat { archive.format }

    static func map(_ e: TileArchiveError, _ path: String) -> MapStyleError {
        if case .cannotOpen = e { return .cannotOpenPackage(path: path, reason: e.description) }
        return .badPackage(path: path, reason: e.description)
    }

    /// The package description from its metadata (header values fill in what the metadata lacks).
    func info() throws(MapStyleError) -> PackageInfo {
        do throws(TileArchiveError) {
            guard var members = try archive.metadata().objectMembers else {
                throw TileArchiveError.invalidArchive(path: path, reason: "the metadata is not a JSON object")
            }
            // A style has a layer per package layer and kind: tens of thousands make its export run for minutes.
            let layers = members.first { $0.key == "vector_layers" }?.value.arrayValue?.count ?? 0
            guard layers <= Self.maxLayers else {
                throw TileArchiveError.invalidArchive(
                    path: path,
                    reason: "metadata lists \(layers) vector layers, more than the limit of \(Self.maxLayers)")
            }
            for (key, value) in archive.headerMetadata where !members.contains(where: { $0.key == key }) {
                members.append((key, value))
            }
            return PackageInfo(metadata: .object(members), path: path, format: archive.format)
        } catch {
            throw PackageReader.map(error, path)
        }
    }

    /// The decoded tile `z/x/y`, or nil when the package has none there.
    func tile(_ t: TileCoordinate) throws(MapStyleError) -> DecodedTile? {
        let bytes: [UInt8]?
        do throws(TileArchiveError) {
            bytes = try archive.tile(t)
        } catch {
            if case .invalidArchive(_, let reason) = error {
                throw .badPackage(path: path, reason: "tile \(t): \(reason)")
            }
            throw PackageReader.map(error, path)
        }
        guard let bytes else { return nil }
        do throws(MVTDecodeError) {
            return try decoder.decode(bytes)
        } catch {
            throw .badPackage(path: path, reason: "tile \(t): \(error.description)")
        }
    }

    /// Calls `body` with every stored tile's coordinate and stored bytes until it returns false.
    func forEachStoredTile(_ body: (TileCoordinate, [UInt8]) -> Bool) throws(MapStyleError) {
        do throws(TileArchiveError) {
            try archive.forEachStoredTile(body)
        } catch {
            throw PackageReader.map(error, path)
        }
    }

    /// Decompresses and decodes stored tile bytes.
    func decode(_ stored: [UInt8], _ t: TileCoordinate) throws(MapStyleError) -> DecodedTile {
        let bytes: [UInt8]
        do throws(TileArchiveError) {
            bytes = try archive.tileData(stored)
        } catch {
            throw .badPackage(path: path, reason: "tile \(t): \(error.description)")
        }
        do throws(MVTDecodeError) {
            return try decoder.decode(bytes)
        } catch {
            throw .badPackage(path: path, reason: "tile \(t): \(error.description)")
        }
    }
}
