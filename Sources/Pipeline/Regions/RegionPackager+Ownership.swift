import Foundation
import KartpackCore

/// What `kartpack package` may write or delete in its output folder: only the files it manages (issue 32,
/// finding 2). A file there that the previous catalog does not list is someone else's and is never overwritten;
/// a file the previous catalog listed is deleted only while it is still the file listed, and never when it is
/// the same file as one of tonight's packages (a region id that changed case, on a case-insensitive folder).
extension RegionPackager {
    /// The `(device, inode)` of `path` (not following a final symbolic link), or nil when nothing is there.
    static func identity(_ path: String) -> (UInt64, UInt64)? {
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

    /// Of `names` (tonight's package files), those that exist in `folder` but are not a file the previous catalog
    /// lists: writing them would clobber a file Kartpack did not write.
    static func unownedTargets(_ names: [String], previous: Catalog?, folder: String) -> [String] {
        let listed = (previous?.regions ?? []).map { folder + "/" + $0.file }
        return names.filter { name in
            let path = folder + "/" + name
            guard identity(path) != nil else { return false }
            return !listed.contains { sameFile($0, path) }
        }
    }

    /// The previous catalog's files to delete once tonight's catalog (listing `kept`) is published: those it no
    /// longer lists, still of the size the previous catalog gave (else something else was written there), and not
    /// the same file as a kept one. `sameFile` and `size` are the folder's (parameters so that the case-insensitive
    /// case can be tested on Linux).
    static func removable(
        previous: [Catalog.Region], kept: [String], sameFile: (String, String) -> Bool, size: (String) -> UInt64?
    ) -> [String] {
        let keptSet = Set(kept)
        return previous.map(\.file).enumerated().compactMap { i, file in
            guard !keptSet.contains(file), isPackageFileName(file), size(file) == previous[i].bytes else { return nil }
            return kept.contains { sameFile($0, file) } ? nil : file
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
        guard sameFile(parts.folder.isEmpty ? "." : parts.folder, folder) else { return nil }
        let name = parts.name
        let managed =
            name == Catalog.fileName || name == Catalog.signatureName || isPackageFileName(name)
            || name == TemporaryName.lockName(for: Catalog.fileName) || TemporaryName.parse(name) != nil
        return managed ? "is a file the package folder \(folder) manages" : nil
    }

    /// Every file of a Shapefile set `path` (`.shp`, `.shx`, `.dbf`, `.prj`, `.cpg`).
    package static func shapefileSet(_ path: String) -> [String] {
        let base = (path as NSString).deletingPathExtension
        return [path] + ["shp", "shx", "dbf", "prj", "cpg", "SHP", "SHX", "DBF", "PRJ", "CPG"].map { base + "." + $0 }
    }
}
