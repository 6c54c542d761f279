import ConvertEngine
import Foundation
import KartpackCore
import KartpackKit
import Nightly
import Publishing

extension RegionPackager {
    /// A shard's part folder (`package --plan --shard`) as the merge reads it: its published catalog, the folder
    /// its packages are in, and its regions' fingerprints and inputs (`RegionPartSummary`).
    package struct Part: Sendable {
        package var folder: String
        package var files: String
        package var entries: [String: CatalogRegion]
        package var summary: RegionPartSummary

        /// Reads the part folder's catalog and summary (refused as damaged, 65, when it lacks either, or when a
        /// package of its catalog has another fingerprint than its summary gives the region).
        package init(folder: String) throws {
            let files = PackageGenerations(folder: folder).currentFolder() ?? folder
            guard let catalog = try Catalog.read(folder: files) else {
                throw ShardError.damaged(path: folder, reason: "the part holds no catalog.json")
            }
            guard let summary = RegionPartSummary.read(folder: folder) else {
                throw ShardError.damaged(
                    path: folder + "/" + RegionPartSummary.fileName, reason: "missing or not a part's region summary")
            }
            self.folder = folder
            self.files = files
            self.summary = summary
            entries = Dictionary(catalog.regions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            for (id, entry) in entries where summary.fingerprints[id] != entry.fingerprint {
                throw ShardError.partsDoNotFit(
                    reason: "\(folder): its package of region \(id) is not the one its region summary fingerprints")
            }
        }
    }

    /// Takes region `id`'s package from its shard's part into tonight's generation at `target` (a hard link, or a
    /// copy), instead of building it: nil when the shard found the region empty. The part's entry must have
    /// tonight's `fingerprint` and its file the entry's size and SHA-256; otherwise the part was built from other
    /// inputs or was changed since, and the region fails (exit 65, nothing is published).
    static func takePart(_ parts: [String: Part], id: String, target: String, fingerprint: String) throws
        -> (entry: CatalogRegion, features: Int, written: [String: Int])?
    {
        guard let part = parts[id] else {
            throw ShardError.partsDoNotFit(reason: "no shard of the plan holds region \(id)")
        }
        guard let entry = part.entries[id] else { return nil }
        guard entry.fingerprint == fingerprint else {
            throw ShardError.partsDoNotFit(
                reason: "\(part.folder): its package of region \(id) was built from other inputs or options")
        }
        let source = part.files + "/" + entry.file
        guard intact(entry, folder: part.files) else {
            throw ShardError.partsDoNotFit(reason: "\(source): its size or SHA-256 is not the part catalog's")
        }
        try linkOrCopy(source, to: target)
        let written = PackageSummary.read(path: target)?.writtenByInput ?? [:]
        return (entry, entry.layers.reduce(0) { $0 + $1.features }, written)
    }
}
