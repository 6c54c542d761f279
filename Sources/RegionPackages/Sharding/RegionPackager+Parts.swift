import Foundation
import KartpackCore
import KartpackKit
import Nightly
import Publishing

extension RegionPackager {
    /// A shard's part folder (`package --plan --shard`) as the merge reads it: its published catalog and the
    /// folder its packages are in.
    package struct Part: Sendable {
        package var folder: String
        package var files: String
        package var entries: [String: CatalogRegion]

        /// Reads the part folder's catalog (refused as damaged when it has none).
        package init(folder: String) throws {
            let files = PackageGenerations(folder: folder).currentFolder() ?? folder
            guard let catalog = try Catalog.read(folder: files) else {
                throw PublishError.cannotStage(path: folder, reason: "the part holds no catalog.json")
            }
            self.folder = folder
            self.files = files
            entries = Dictionary(catalog.regions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// Takes region `id`'s package from its shard's part into tonight's generation at `target` (a hard link, or a
    /// copy), instead of building it: nil when the shard found the region empty. The part's entry must have
    /// tonight's `fingerprint` and its file the entry's size and SHA-256; otherwise the part was built from other
    /// inputs or was changed since, and the region fails (nothing is published).
    static func takePart(_ parts: [String: Part], id: String, target: String, fingerprint: String) throws
        -> (entry: CatalogRegion, features: Int, written: [String: Int])?
    {
        guard let part = parts[id] else {
            throw PublishError.cannotStage(path: target, reason: "no shard of the plan holds region \(id)")
        }
        guard let entry = part.entries[id] else { return nil }
        guard entry.fingerprint == fingerprint else {
            throw PublishError.cannotStage(
                path: part.folder, reason: "its package of region \(id) was built from other inputs or options")
        }
        let source = part.files + "/" + entry.file
        guard intact(entry, folder: part.files) else {
            throw PublishError.cannotStage(path: source, reason: "its size or SHA-256 is not the part catalog's")
        }
        try linkOrCopy(source, to: target)
        let written = PackageSummary.read(path: target)?.writtenByInput ?? [:]
        return (entry, entry.layers.reduce(0) { $0 + $1.features }, written)
    }
}
