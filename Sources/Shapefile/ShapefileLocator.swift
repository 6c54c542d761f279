import Foundation

/// Finds Shapefiles on disk.
///
/// Extensions match case-insensitively (`.shp`, `.SHP`, `.Shp`); the base name must match exactly. When one base
/// name has several case variants of the same extension (`a.shp` and `a.SHP`), the first in byte order wins, so the
/// choice is deterministic.
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
                let names = try listing(of: path)
                var seenBases: Set<String> = []
                var sets: [ShapefileSet] = []
                for name in names where extensionOf(name)?.lowercased() == "shp" {
                    let base = String(name.dropLast(4))
                    guard seenBases.insert(base).inserted else { continue }
                    sets.append(companions(folder: path, names: names, shpName: name, base: base))
                }
                guard !sets.isEmpty else { throw .noShapefiles(path: path) }
                return sets
            }
            let (folder, name) = split(path)
            guard extensionOf(name)?.lowercased() == "shp" else { throw .noShapefiles(path: path) }
            let names = try listing(of: folder)
            return [companions(folder: folder, names: names, shpName: name, base: String(name.dropLast(4)))]
        }
        // A base path without extension: look for base.shp in any case.
        let (folder, name) = split(path)
        if fm.fileExists(atPath: folder.isEmpty ? "." : folder), extensionOf(name)?.lowercased() != "shp" {
            let names = try listing(of: folder)
            if let shpName = names.first(where: { $0.count == name.count + 4 && $0.hasPrefix(name)
                && extensionOf($0)?.lowercased() == "shp" })
            {
                return [companions(folder: folder, names: names, shpName: shpName, base: name)]
            }
        }
        throw .fileNotFound(path: path)
    }

    private static func listing(of folder: String) throws(ShapefileError) -> [String] {
        do {
            // Byte order (not locale order): deterministic everywhere.
            return try FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)
                .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        } catch {
            throw .unreadable(path: folder, reason: "cannot list the folder")
        }
    }

    private static func companions(folder: String, names: [String], shpName: String, base: String) -> ShapefileSet {
        func find(_ ext: String) -> String? {
            names.first { $0.count == base.count + 1 + ext.count && $0.hasPrefix(base + ".")
                && extensionOf($0)?.lowercased() == ext
            }.map { join(folder, $0) }
        }
        return ShapefileSet(
            shp: join(folder, shpName), shx: find("shx"), dbf: find("dbf"), prj: find("prj"), cpg: find("cpg"),
            memo: find("dbt") ?? find("fpt"), baseName: base)
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
