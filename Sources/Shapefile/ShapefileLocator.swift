import Foundation
import KartpackCore

/// Finds Shapefiles on disk; which files form a set is `ShapefileGrouping`'s rule (the one `import` uses too).
public enum ShapefileLocator {
    /// Returns the Shapefile at a `.shp` path (a path without extension is tried with one), or every `.shp` in a
    /// folder (not recursive), sorted by file name.
    ///
    /// Throws `fileNotFound` for a missing path and `noShapefiles` for a folder without `.shp` files or a file
    /// that is not a `.shp`.
    public static func shapefiles(at path: String) throws(ShapefileError) -> [ShapefileSet] {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue {
                let sets = ShapefileGrouping(fileNames: try listing(of: path), folder: path).groups.map(\.set)
                guard !sets.isEmpty else { throw .noShapefiles(path: path) }
                return sets
            }
            let (folder, name) = split(path)
            guard extensionOf(name)?.lowercased() == "shp" else { throw .noShapefiles(path: path) }
            return [try set(named: String(name.dropLast(4)), shpName: name, in: folder)]
        }
        // A base path without extension: look for base.shp in any case.
        let (folder, name) = split(path)
        if fm.fileExists(atPath: folder.isEmpty ? "." : folder), extensionOf(name)?.lowercased() != "shp" {
            let names = try listing(of: folder)
            if let shpName = names.first(where: {
                $0.count == name.count + 4 && $0.hasPrefix(name)
                    && extensionOf($0)?.lowercased() == "shp"
            }) {
                return [try set(named: name, shpName: shpName, in: folder)]
            }
        }
        throw .fileNotFound(path: path)
    }

    private static func listing(of folder: String) throws(ShapefileError) -> [String] {
        do {
            // Byte order (not locale order): deterministic everywhere.
            return try FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        } catch {
            let name = folder.isEmpty ? "." : folder
            if let e = OpenFileLimit.exhaustedNow(), let exhausted = ShapefileError.exhausted(name, errno: e) {
                throw exhausted
            }
            throw .unreadable(path: folder, reason: "cannot list the folder")
        }
    }

    /// The set of base name `base` in `folder`, with the `.shp` the user named (any extension case).
    private static func set(named base: String, shpName: String, in folder: String) throws(ShapefileError)
        -> ShapefileSet
    {
        // Only names whose base equals `base` ignoring case can belong to its set (ShapefileGrouping's rule), so
        // the rest of a large folder is not grouped once per input.
        let folded = base.lowercased()
        let related = try listing(of: folder).filter { name in
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
            return name[..<dot].lowercased() == folded
        }
        let grouping = ShapefileGrouping(fileNames: related, folder: folder)
        var set = grouping.groups.first { $0.set.baseName == base }?.set ?? ShapefileSet(shp: "", baseName: base)
        set.shp = join(folder, shpName)
        return set
    }

    static func extensionOf(_ name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return String(name[name.index(after: dot)...])
    }

    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        let folder = String(path[...slash])
        return (folder, String(path[path.index(after: slash)...]))
    }

    static func join(_ folder: String, _ name: String) -> String {
        if folder.isEmpty { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The last path component, used in diagnostics.
    static func fileName(_ path: String) -> String { split(path).name }
}
