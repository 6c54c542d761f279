import Foundation
import KartpackCore
import KartpackKit
import PipelineFiles

extension RegionPackager {
    /// Keeps last night's package for every region rebuilt tonight into the very same bytes: its staged file is
    /// replaced by a hard link to last night's (same inode and modification time) and its catalog entry is last
    /// night's (`built`, size, hash, bounds, layers), with tonight's `fingerprint` so that it is not rebuilt again
    /// tomorrow. Only where last night's file still has its listed size and SHA-256. A tablet downloads nothing
    /// for such a region.
    static func keepIdentical(
        _ staged: inout [Int: Built], regions: [RegionRecord], previous: [String: CatalogRegion],
        generation: String, published: String
    ) throws {
        for i in staged.keys.sorted() {
            guard let b = staged[i], var entry = previous[regions[i].id], entry.file == b.entry.file,
                entry.bytes == b.entry.bytes, entry.sha256 == b.entry.sha256, intact(entry, folder: published)
            else { continue }
            let target = generation + "/" + entry.file
            guard unlink(target) == 0 else { continue }
            try linkOrCopy(published + "/" + entry.file, to: target)
            entry.fingerprint = b.entry.fingerprint
            staged[i]?.entry = entry
            staged[i]?.kept = true
        }
    }

    /// What tonight changed for a tablet (`RegionPackageReport.Night`): the packages whose bytes are new (added
    /// or rebuilt), those kept (up to date, or rebuilt into the same bytes), the removed ones, and the bytes to
    /// download: the new packages plus the catalog and its signature (`catalogBytes`).
    static func night(
        regions: [RegionRecord], reuse: [CatalogRegion?], staged: [Int: Built], previous: [String: CatalogRegion],
        removed: Int, catalogBytes: UInt64
    ) -> RegionPackageReport.Night {
        var n = RegionPackageReport.Night(
            added: 0, rebuilt: 0, unchanged: reuse.compactMap { $0 }.count, removed: removed,
            downloadBytes: catalogBytes)
        for (i, b) in staged {
            if b.kept {
                n.unchanged += 1
                continue
            }
            if previous[regions[i].id] == nil { n.added += 1 } else { n.rebuilt += 1 }
            n.downloadBytes += UInt64(b.entry.bytes)
        }
        return n
    }
}

extension RegionPackageReport {
    /// One published night as a tablet sees it (docs/regions.md, *What a night changed*).
    package struct Night: Encodable, Sendable {
        /// Regions not in the previous catalog.
        package var added: Int
        /// Regions of the previous catalog whose package has new bytes (a new SHA-256).
        package var rebuilt: Int
        /// Regions whose package and catalog entry were kept: up to date, or rebuilt into the same bytes.
        package var unchanged: Int
        /// Regions that left the catalog.
        package var removed: Int
        /// What a tablet holding the previous night downloads: the added and rebuilt packages, the catalog and
        /// its signature.
        package var downloadBytes: UInt64
    }
}
