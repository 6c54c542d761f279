import Foundation
import KartpackCore
import KartpackKit

/// What `kartpack package` may write or delete in its output folder: only the files it manages (issue 32,
/// finding 2). A file there that is neither a link into the folder's generations nor listed by the previous catalog
/// is someone else's and is never replaced; only the packager's own links are ever removed.
extension RegionPackager {
    /// The `(device, inode)` of `path` (not following a final symbolic link), or nil when nothing is there.
    package static func identity(_ path: String) -> (UInt64, UInt64)? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }

    /// True when both paths name the same existing file (on a case-insensitive folder, `R1.pmtiles` and
    /// `r1.pmtiles` do).
    static func sameFile(_ a: String, _ b: String) -> Bool {
        guard let x = identity(a), let y = identity(b) else { return false }
        return x == y
    }

    /// Of `names` (tonight's package files), those that exist in `folder` but are neither a link into the folder's
    /// generations (`PackageGenerations`) nor a file the previous catalog lists: publishing would replace a file
    /// Kartpack did not write.
    static func unownedTargets(_ names: [String], previous: Catalog?, folder: String) -> [String] {
        let listed = (previous?.regions ?? []).map { folder + "/" + $0.file }
        return names.filter { name in
            let path = folder + "/" + name
            guard identity(path) != nil, !PackageGenerations.isOurLink(path) else { return false }
            return !listed.contains { sameFile($0, path) }
        }
    }

    /// Why `--report` must not be written to `report`, or nil: it is one of `inputs` (the pipeline, the regions'
    /// and the sources' files), or a name the packager manages in `folder` (the catalog, its signature, a package,
    /// a lock or a staging file).
    package static func reportConflict(_ report: String, inputs: [String], folder: String) -> String? {
        if let mine = identity(report), let input = inputs.first(where: { identity($0).map { $0 == mine } ?? false }) {
            return "is the input \(input)"
        }
        let parts = RegularFile.split(report)
        let parent = parts.folder.isEmpty ? "." : parts.folder
        let store = folder + "/" + PackageGenerations.storeName
        if sameFile(parent, store) || sameFile(RegularFile.parentPath(parent), store) {
            return "is inside the package folder's generations (\(store))"
        }
        guard sameFile(parent, folder) else { return nil }
        let name = parts.name
        let managed =
            name == Catalog.fileName || name == Catalog.signatureName || isPackageFileName(name)
            || name == PackageGenerations.storeName
            || name == TemporaryName.lockName(for: Catalog.fileName) || TemporaryName.parse(name) != nil
        return managed ? "is a file the package folder \(folder) manages" : nil
    }

    /// Every file of a Shapefile set `path` (`.shp`, `.shx`, `.dbf`, `.prj`, `.cpg`).
    package static func shapefileSet(_ path: String) -> [String] {
        let base = (path as NSString).deletingPathExtension
        return [path] + ["shp", "shx", "dbf", "prj", "cpg", "SHP", "SHX", "DBF", "PRJ", "CPG"].map { base + "." + $0 }
    }
}
