import Glibc
import KartpackCore
import Shapefile

/// Finds every Shapefile set in a folder tree (an extracted zip archive or a folder given by the user).
///
/// - The walk is recursive, in byte order of names, and never follows symbolic links: links are skipped with
///   `symlink_skipped`; devices, FIFOs and sockets with `special_file_skipped`. macOS resource forks (`__MACOSX`
///   folders, `._name` files) are ignored silently. Folders nested deeper than `maxDepth` are skipped
///   (`folder_too_deep`); more than `maxEntries` names in all refuses the folder (`limitExceeded`).
/// - The regular files of each folder form sets by `ShapefileGrouping`'s rule, the same one `convert` uses: every
///   distinct `.shp` base name is a set (`Roads.shp` and `roads.shp` are two), sidecars go to their exact base or
///   to the one `.shp` equal to it ignoring case; files in other folders are never grouped with it. Extension-case
///   variants that lose are `duplicate_shapefile` / `duplicate_sidecar` warnings on the chosen set.
/// - Sidecars without a `.shp` are reported as `orphan_sidecar`.
/// - GeoPackages (`.gpkg`, any case) are listed too (`geoPackages`), for the importer to read their feature
///   tables.
/// - Sets are sorted by relative path (byte order). The layer name is the base name; when an earlier set already
///   uses it (ignoring case), `_2`, `_3`, … is appended (`layer_renamed`).
package struct ShapefileDiscovery: Sendable {
    /// The deepest folder nesting searched (the root is depth 0).
    package var maxDepth: Int
    /// The most names (files and folders) examined in all.
    package var maxEntries: Int

    /// Creates a discovery with caps for untrusted folder trees.
    package init(maxDepth: Int = 32, maxEntries: Int = 100_000) {
        self.maxDepth = maxDepth
        self.maxEntries = maxEntries
    }

    /// One directory entry seen during the walk.
    package struct Name {
        package var name: String
        var isRegular: Bool
    }

    /// Walks `root` and returns every Shapefile set. Throws `sourceUnreadable` when `root` is missing or not a
    /// folder, `limitExceeded` over `maxEntries`.
    package func discover(in root: String) throws(ImportError) -> ShapefileDiscoveryResult {
        var base = root
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var st = stat()
        guard lstat(base, &st) == 0 else {
            throw .sourceUnreadable(path: root, reason: "cannot read the folder: \(String(cString: strerror(errno)))")
        }
        // The root itself was named by the user: a link to a folder is fine here (links below it are not followed).
        if st.st_mode & S_IFMT == S_IFLNK, let resolved = RegularFile.realPath(base) {
            base = resolved
            guard lstat(base, &st) == 0 else {
                throw .sourceUnreadable(
                    path: root, reason: "cannot read the folder: \(String(cString: strerror(errno)))")
            }
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw .sourceUnreadable(path: root, reason: "it is not a folder (\(FileKind.name(st.st_mode)))")
        }
        var warnings: [Diagnostic] = []
        var found: [DiscoveredShapefile] = []
        var seen = 0
        var geoPackages: [(relativePath: String, path: String)] = []
        try walk(
            base: base, relative: "", depth: 0, seen: &seen, found: &found, geoPackages: &geoPackages,
            warnings: &warnings, rootForErrors: root)
        geoPackages.sort { Array($0.relativePath.utf8).lexicographicallyPrecedes(Array($1.relativePath.utf8)) }
        found.sort { Array($0.relativePath.utf8).lexicographicallyPrecedes(Array($1.relativePath.utf8)) }
        // Unique layer names in sorted order.
        var used: Set<String> = []
        for k in found.indices {
            let wanted = found[k].baseName
            var name = wanted
            var n = 2
            while used.contains(name.lowercased()) {
                name = "\(wanted)_\(n)"
                n += 1
            }
            used.insert(name.lowercased())
            if name != wanted {
                found[k].warnings.append(
                    Diagnostic(
                        .warning, code: .layerRenamed,
                        "layer \"\(wanted)\" is already used by another Shapefile; this one is named \"\(name)\"",
                        file: found[k].relativePath))
            }
            found[k].layerName = name
        }
        return ShapefileDiscoveryResult(shapefiles: found, geoPackages: geoPackages, warnings: warnings)
    }

    private func walk(
        base: String, relative: String, depth: Int, seen: inout Int, found: inout [DiscoveredShapefile],
        geoPackages: inout [(relativePath: String, path: String)], warnings: inout [Diagnostic], rootForErrors: String
    ) throws(ImportError) {
        let folder = relative.isEmpty ? base : base + "/" + relative
        func rel(_ name: String) -> String { relative.isEmpty ? name : relative + "/" + name }
        guard let listing = Self.list(folder) else {
            warnings.append(
                Diagnostic(
                    .warning, code: .unreadableFolder,
                    "cannot list the folder: \(String(cString: strerror(errno))); skipped",
                    file: relative.isEmpty ? "." : relative))
            return
        }
        if listing.invalidNames > 0 {
            warnings.append(
                Diagnostic(
                    .warning, code: .unreadableName,
                    "\(listing.invalidNames) names are not valid UTF-8 and were skipped",
                    file: relative.isEmpty ? "." : relative))
        }
        seen += listing.names.count
        if seen > maxEntries {
            throw .limitExceeded(
                source: rootForErrors, entry: nil, reason: "it holds more than \(maxEntries) files and folders")
        }
        var files: [String] = []
        var subfolders: [String] = []
        for name in listing.names {
            if name.hasPrefix("._") || name == "__MACOSX" { continue }
            var st = stat()
            guard lstat(folder + "/" + name, &st) == 0 else {
                warnings.append(
                    Diagnostic(
                        .warning, code: .unreadableFolder,
                        "cannot stat: \(String(cString: strerror(errno))); skipped", file: rel(name)))
                continue
            }
            switch st.st_mode & S_IFMT {
            case S_IFREG: files.append(name)
            case S_IFDIR: subfolders.append(name)
            case S_IFLNK:
                warnings.append(
                    Diagnostic(
                        .warning, code: .symlinkSkipped, "symbolic link not followed; skipped", file: rel(name)))
            default:
                warnings.append(
                    Diagnostic(
                        .warning, code: .specialFileSkipped, "\(FileKind.name(st.st_mode)); skipped", file: rel(name)
                    ))
            }
        }
        found += Self.group(files: files, folder: folder, relative: relative, warnings: &warnings)
        for name in files where name.lowercased().hasSuffix(".gpkg") {
            geoPackages.append((rel(name), folder + "/" + name))
        }
        for sub in subfolders {
            if depth + 1 > maxDepth {
                warnings.append(
                    Diagnostic(
                        .warning, code: .folderTooDeep, "nested more than \(maxDepth) folders deep; skipped",
                        file: rel(sub)))
                continue
            }
            try walk(
                base: base, relative: rel(sub), depth: depth + 1, seen: &seen, found: &found,
                geoPackages: &geoPackages, warnings: &warnings, rootForErrors: rootForErrors)
        }
    }

    /// Groups the regular files of one folder into Shapefile sets.
    package static func group(files: [String], folder: String, relative: String, warnings: inout [Diagnostic])
        -> [DiscoveredShapefile]
    {
        func rel(_ name: String) -> String { relative.isEmpty ? name : relative + "/" + name }
        let grouping = ShapefileGrouping(fileNames: files, folder: folder)
        let out = grouping.groups.map { g in
            var setWarnings: [Diagnostic] = []
            for other in g.ignoredShapefiles {
                setWarnings.append(
                    Diagnostic(
                        .warning, code: .duplicateShapefile,
                        "\(rel(other)) differs only by case; \(g.shpName) is used and \(other) is ignored",
                        file: rel(g.shpName)))
            }
            for (used, other) in g.ignoredSidecars {
                setWarnings.append(
                    Diagnostic(
                        .warning, code: .duplicateSidecar,
                        "\(rel(other)) differs only by case; \(used) is used and \(other) is ignored",
                        file: rel(g.shpName)))
            }
            return DiscoveredShapefile(
                relativePath: rel(g.shpName), files: g.set, layerName: g.set.baseName, warnings: setWarnings)
        }
        for name in grouping.orphanSidecars {
            let base = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
            warnings.append(
                Diagnostic(
                    .warning, code: .orphanSidecar, "no .shp named \(base) in the same folder; ignored",
                    file: rel(name)))
        }
        return out
    }

    /// The names in a folder (without `.` and `..`), sorted in byte order, plus how many were not valid UTF-8.
    /// Nil when the folder cannot be opened (errno is set).
    package static func list(_ folder: String) -> (names: [String], invalidNames: Int)? {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard let dir = fdopendir(fd) else {
            close(fd)
            return nil
        }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        var invalid = 0
        while let entry = readdir(dir) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if bytes == [0x2e] || bytes == [0x2e, 0x2e] { continue }
            names.append(bytes)
        }
        names.sort { $0.lexicographicallyPrecedes($1) }
        var out: [String] = []
        for n in names {
            if let s = String(validating: n, as: UTF8.self) { out.append(s) } else { invalid += 1 }
        }
        return (out, invalid)
    }
}
