import Foundation
import KartpackCore
import KartpackKit
import Nightly
import TileArchive
import PipelineFiles

/// `kartpack verify OUTDIR`: the catalog parses, every listed file is there with its size and SHA-256, opens as a
/// package whose every tile can be read, with the zooms the catalog lists; with a public key, the signature holds.
package enum CatalogVerifier {
    /// What was checked and every mismatch (empty when all is well).
    package struct Result: Sendable {
        package var regions = 0
        package var tiles = 0
        package var signatureChecked = false
        package var problems: [String] = []
        package var notes: [String] = []
        /// Set when the signature could not be checked because `minisign` is not installed (exit 69).
        package var unavailable: String?
    }

    /// Checks the folder. With `since`, a catalog whose `sequence` is not greater than it is refused (a rollback
    /// to an older signed catalog, or a replay of the one already accepted).
    package static func verify(folder: String, publicKey: String?, since: Int? = nil) -> Result {
        var result = Result()
        // A folder with generations is checked in its published generation, resolved once: a publish that
        // switches it meanwhile cannot mix two nights into one check.
        let generations = PackageGenerations(folder: folder)
        let generation = generations.current()
        let base = generations.currentFolder() ?? folder
        let catalogPath = base + "/" + Catalog.fileName
        let catalog: Catalog
        do {
            guard let c = try Catalog.read(folder: base) else {
                result.problems.append("\(catalogPath): no catalog")
                return result
            }
            catalog = c
            let sequence = c.sequence ?? 0
            if let since, sequence <= since {
                result.problems.append(
                    "\(catalogPath): sequence \(sequence) is not newer than \(since) (an older or replayed catalog)")
            }
        } catch {
            result.problems.append(error.description)
            return result
        }
        let signature = base + "/" + Catalog.signatureName
        if let publicKey {
            if !FileManager.default.fileExists(atPath: signature) {
                result.problems.append("\(signature): missing (the catalog is not signed)")
            } else {
                do {
                    if let reason = try CatalogSigner().check(
                        file: catalogPath, signature: signature, publicKey: publicKey)
                    {
                        result.problems.append("\(signature): bad signature: \(reason)")
                    } else {
                        result.signatureChecked = true
                    }
                } catch .notInstalled {
                    result.unavailable = SigningError.notInstalled.description
                } catch {
                    result.problems.append(error.description)
                }
            }
        } else if FileManager.default.fileExists(atPath: signature) {
            result.notes.append("\(signature) not checked (pass --pubkey KEY.pub)")
        }
        var ids = Set<String>()
        for r in catalog.regions {
            result.regions += 1
            let name = "region \(r.id)"
            if !ids.insert(r.id).inserted { result.problems.append("\(name): id listed twice") }
            if let why = RegionSet.problem(r.id) { result.problems.append("\(name): id \(why)") }
            guard RegionPackager.isPackageFileName(r.file) else {
                result.problems.append(
                    "\(name): file \(RegionSetError.quoted(r.file)) is not a package name in the folder")
                continue
            }
            guard r.file == r.id + ".pmtiles" || r.file == r.id + ".mbtiles" else {
                result.problems.append("\(name): file \(RegionSetError.quoted(r.file)) is not the region's own file")
                continue
            }
            let path = base + "/" + r.file
            // Only a regular file of the listed size is hashed: a FIFO would block, a huge sparse file take hours.
            var st = stat()
            guard lstat(path, &st) == 0 else {
                result.problems.append("\(name): \(path): \(String(cString: strerror(errno)))")
                continue
            }
            guard (st.st_mode & S_IFMT) == S_IFREG else {
                result.problems.append("\(name): \(path) is a \(RegularFile.describe(st.st_mode)), not a regular file")
                continue
            }
            guard Int64(st.st_size) == r.bytes else {
                result.problems.append("\(name): \(r.file) has \(st.st_size) bytes, the catalog says \(r.bytes)")
                continue
            }
            result.problems += sqliteSidecars(of: r.file, in: Array(Set([base, folder])).sorted())
                .map { "\(name): \($0)" }
            let digest: FileDigest
            do { digest = try FileDigest.sha256(path: path) } catch {
                result.problems.append("\(name): \(path): \(error.description)")
                continue
            }
            if digest.bytes != r.bytes {
                result.problems.append("\(name): \(r.file) has \(digest.bytes) bytes, the catalog says \(r.bytes)")
            }
            if digest.sha256 != r.sha256 {
                result.problems.append("\(name): \(r.file) has SHA-256 \(digest.sha256), the catalog says \(r.sha256)")
            }
            do {
                let archive = try openTileArchive(path: path)
                _ = try archive.metadata()
                var bad: String?
                var z = (lo: Int.max, hi: Int.min)
                // Each stored blob is decoded once; a PMTiles run-length entry counts all its tiles, and its last
                // tile's zoom is checked too (a run may reach past the catalog's zooms).
                try forEachStoredRun(archive) { t, last, count, stored in
                    do {
                        _ = try archive.tileData(stored)
                    } catch {
                        bad = "tile \(t.z)/\(t.x)/\(t.y): \((error as? any KartpackError)?.description ?? "\(error)")"
                        return false
                    }
                    z = (min(z.lo, t.z), max(z.hi, last))
                    result.tiles += count
                    return true
                }
                if let bad { result.problems.append("\(name): \(r.file): \(bad)") }
                if z.hi != Int.min, z.lo < r.minZoom || z.hi > r.maxZoom {
                    result.problems.append(
                        "\(name): \(r.file) has tiles at zooms \(z.lo)-\(z.hi), the catalog says "
                            + "\(r.minZoom)-\(r.maxZoom)"
                    )
                }
            } catch {
                result.problems.append(
                    "\(name): \(r.file) does not open as a package: "
                        + "\((error as? any KartpackError)?.description ?? "\(error)")"
                )
            }
        }
        if let generation {
            result.problems += publishedView(folder: folder, generation: generation, catalog: catalog)
            if generations.current() != generation {
                result.problems.append("\(folder): republished while verifying; run verify again")
            }
        }
        return result
    }

    /// Visits each stored blob of `archive` once: its first tile, the zoom of its last tile, its tile count and its
    /// stored bytes (a PMTiles run-length entry is one blob for `runLength` consecutive tiles).
    static func forEachStoredRun(
        _ archive: any TileArchiveReading, _ body: (TileCoordinate, Int, Int, [UInt8]) -> Bool
    ) throws {
        guard let pm = archive as? PMTilesReader else {
            try archive.forEachStoredTile { t, stored in body(t, t.z, 1, stored) }
            return
        }
        var failure: TileArchiveError?
        try pm.forEachEntry { e in
            let count = Int(e.entry.runLength)
            let lastID = e.entry.tileID.addingReportingOverflow(UInt64(max(count, 1) - 1)).partialValue
            let last = PMTilesTileID.coordinate(lastID)?.z ?? Int.max
            do throws(TileArchiveError) {
                return body(e.key, last, count, try pm.data(for: e))
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    /// SQLite's `-wal`, `-shm` and `-journal` files beside an MBTiles package in `folders`, as problems: a reader
    /// that opens the package without `immutable` applies a write-ahead log (or rolls back a journal), so it
    /// would read something other than the bytes the catalog hashes and signs. Kartpack's own readers ignore them.
    static func sqliteSidecars(of file: String, in folders: [String]) -> [String] {
        var out: [String] = []
        for folder in folders {
            for suffix in ArchiveFormat.from(path: file)?.sidecarSuffixes ?? [] {
                let path = folder + "/" + file + suffix
                var st = stat()
                guard lstat(path, &st) == 0 else { continue }
                out.append(
                    "\(path): a SQLite \(suffix) file beside the package; a reader that opens it without "
                        + "immutable=1 would not read the bytes the catalog lists: remove it")
            }
        }
        return out
    }

    /// What a reader of the folder's top-level names gets must be the published generation's files: each name the
    /// catalog lists (and the catalog and its signature) resolves to the same file in `generation`.
    static func publishedView(folder: String, generation: String, catalog: Catalog) -> [String] {
        let base = folder + "/" + PackageGenerations.storeName + "/" + generation
        var names = [Catalog.fileName] + catalog.regions.map(\.file).filter(RegionPackager.isPackageFileName)
        if FileManager.default.fileExists(atPath: base + "/" + Catalog.signatureName) {
            names.append(Catalog.signatureName)
        }
        var problems: [String] = []
        for name in names {
            var top = stat()
            var published = stat()
            guard stat(base + "/" + name, &published) == 0 else { continue }
            guard stat(folder + "/" + name, &top) == 0, top.st_dev == published.st_dev, top.st_ino == published.st_ino
            else {
                problems.append(
                    "\(folder)/\(name) is not the file generation \(generation) publishes "
                        + "(\(PackageGenerations.storeName)/\(generation)/\(name))")
                continue
            }
        }
        return problems
    }
}
