import Glibc
import KartpackCore

/// Finds every Shapefile set in a folder tree (an extracted zip archive or a folder given by the user).
///
/// - The walk is recursive, in byte order of names, and never follows symbolic links: links are skipped with
///   `symlink_skipped`; devices, FIFOs and sockets with `special_file_skipped`. macOS resource forks (`__MACOSX`
///   folders, `._name` files) are ignored silently. Folders nested deeper than `maxDepth` are skipped
///   (`folder_too_deep`); more than `maxEntries` names in all refuses the folder (`limitExceeded`).
/// - A `.shp` is any regular file whose extension is `shp` in any case (`.SHP`, `.Shp`). Its sidecars (`.shx`,
///   `.dbf`, `.prj`, `.cpg` and the memo file `.dbt`/`.fpt`, any case) are regular files in the SAME folder whose
///   base name equals the `.shp`'s ignoring case; files in other folders are never grouped with it.
/// - Case collisions in one folder are settled deterministically: among `.shp` files whose base names are equal
///   ignoring case, the one with the exact lower-case extension `.shp` wins, then the first in byte order; the others
///   are listed as `duplicate_shapefile` warnings on the chosen set. Sidecars prefer the exact base name of the
///   chosen `.shp`, then a lower-case extension, then byte order (`duplicate_sidecar` for the rest).
/// - Sidecars without any `.shp` are reported as `orphan_sidecar`.
/// - Sets are sorted by relative path (byte order). The layer name is the base name; when an earlier set already
///   uses it (ignoring case), `_2`, `_3`, … is appended (`layer_renamed`).
public struct ShapefileDiscovery: Sendable {
    /// The deepest folder nesting searched (the root is depth 0).
    public var maxDepth: Int
    /// The most names (files and folders) examined in all.
    public var maxEntries: Int

    /// Creates a discovery with caps for untrusted folder trees.
    public init(maxDepth: Int = 32, maxEntries: Int = 100_000) {
        self.maxDepth = maxDepth
        self.maxEntries = maxEntries
    }

    /// The sidecar extensions grouped with a `.shp`, lower case.
    public static let sidecarExtensions = ["shx", "dbf", "prj", "cpg", "dbt", "fpt"]

    /// One directory entry seen during the walk.
    struct Name {
        var name: String
        var isRegular: Bool
    }

    /// Walks `root` and returns every Shapefile set. Throws `sourceUnreadable` when `root` is missing or not a
    /// folder, `limitExceeded` over `maxEntries`.
    public func discover(in root: String) throws(ImportError) -> ShapefileDiscoveryResult {
        var base = root
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var st = stat()
        guard lstat(base, &st) == 0 else {
            throw .sourceUnreadable(path: root, reason: "cannot read the folder: \(String(cString: strerror(errno)))")
        }
        // The root itself was named by the user: a link to a folder is fine here (links below it are not followed).
        if st.st_mode & S_IFMT == S_IFLNK, let resolved = realpath(base, nil) {
            base = String(cString: resolved)
            free(resolved)
            guard lstat(base, &st) == 0 else {
                throw .sourceUnreadable(path: root, reason: "cannot read the folder: \(String(cString: strerror(errno)))")
            }
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw .sourceUnreadable(path: root, reason: "it is not a folder (\(FileKind.name(st.st_mode)))")
        }
        var warnings: [Diagnostic] = []
        var found: [DiscoveredShapefile] = []
        var seen = 0
        try walk(
            base: base, relative: "", depth: 0, seen: &seen, found: &found, warnings: &warnings, rootForErrors: root)
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
                        .warning, code: "layer_renamed",
                        "layer \"\(wanted)\" is already used by another Shapefile; this one is named \"\(name)\"",
                        file: found[k].relativePath))
            }
            found[k].layerName = name
        }
        return ShapefileDiscoveryResult(shapefiles: found, warnings: warnings)
    }

    private func walk(
        base: String, relative: String, depth: Int, seen: inout Int, found: inout [DiscoveredShapefile],
        warnings: inout [Diagnostic], rootForErrors: String
    ) throws(ImportError) {
        let folder = relative.isEmpty ? base : base + "/" + relative
        func rel(_ name: String) -> String { relative.isEmpty ? name : relative + "/" + name }
        guard let listing = Self.list(folder) else {
            warnings.append(
                Diagnostic(
                    .warning, code: "unreadable_folder",
                    "cannot list the folder: \(String(cString: strerror(errno))); skipped", file: relative.isEmpty ? "." : relative))
            return
        }
        if listing.invalidNames > 0 {
            warnings.append(
                Diagnostic(
                    .warning, code: "unreadable_name",
                    "\(listing.invalidNames) names are not valid UTF-8 and were skipped", file: relative.isEmpty ? "." : relative))
        }
        seen += listing.names.count
        if seen > maxEntries {
            throw .limitExceeded(source: rootForErrors, entry: nil, reason: "it holds more than \(maxEntries) files and folders")
        }
        var files: [String] = []
        var subfolders: [String] = []
        for name in listing.names {
            if name.hasPrefix("._") || name == "__MACOSX" { continue }
            var st = stat()
            guard lstat(folder + "/" + name, &st) == 0 else {
                warnings.append(
                    Diagnostic(.warning, code: "unreadable_folder", "cannot stat: \(String(cString: strerror(errno))); skipped", file: rel(name)))
                continue
            }
            switch st.st_mode & S_IFMT {
            case S_IFREG: files.append(name)
            case S_IFDIR: subfolders.append(name)
            case S_IFLNK:
                warnings.append(Diagnostic(.warning, code: "symlink_skipped", "symbolic link not followed; skipped", file: rel(name)))
            default:
                warnings.append(
                    Diagnostic(.warning, code: "special_file_skipped", "\(FileKind.name(st.st_mode)); skipped", file: rel(name)))
            }
        }
        found += Self.group(files: files, folder: folder, relative: relative, warnings: &warnings)
        for sub in subfolders {
            if depth + 1 > maxDepth {
                warnings.append(
                    Diagnostic(.warning, code: "folder_too_deep", "nested more than \(maxDepth) folders deep; skipped", file: rel(sub)))
                continue
            }
            try walk(
                base: base, relative: rel(sub), depth: depth + 1, seen: &seen, found: &found, warnings: &warnings,
                rootForErrors: rootForErrors)
        }
    }

    /// Groups the regular files of one folder into Shapefile sets.
    static func group(files: [String], folder: String, relative: String, warnings: inout [Diagnostic]) -> [DiscoveredShapefile] {
        func rel(_ name: String) -> String { relative.isEmpty ? name : relative + "/" + name }
        // (base, extension) for names with a non-empty base and an extension.
        var parts: [(name: String, base: String, ext: String)] = []
        for name in files {
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { continue }
            parts.append((name, String(name[..<dot]), String(name[name.index(after: dot)...])))
        }
        // .shp candidates grouped by lower-cased base, in byte order of the first member.
        var groups: [(key: String, members: [(name: String, base: String, ext: String)])] = []
        var groupIndex: [String: Int] = [:]
        for p in parts where p.ext.lowercased() == "shp" {
            let key = p.base.lowercased()
            if let g = groupIndex[key] {
                groups[g].members.append(p)
            } else {
                groupIndex[key] = groups.count
                groups.append((key, [p]))
            }
        }
        // Sidecar candidates by lower-cased base, in byte order.
        var sidecarsByKey: [String: [(name: String, base: String, ext: String)]] = [:]
        for p in parts where sidecarExtensions.contains(p.ext.lowercased()) {
            sidecarsByKey[p.base.lowercased(), default: []].append(p)
        }
        var out: [DiscoveredShapefile] = []
        for g in groups {
            // Prefer the exact lower-case extension, then byte order (members are already in byte order).
            let chosen = g.members.first(where: { $0.ext == "shp" }) ?? g.members[0]
            var setWarnings: [Diagnostic] = []
            for other in g.members where other.name != chosen.name {
                setWarnings.append(
                    Diagnostic(
                        .warning, code: "duplicate_shapefile",
                        "\(rel(other.name)) differs only by case; \(chosen.name) is used and \(other.name) is ignored",
                        file: rel(chosen.name)))
            }
            var sidecars: [String: String] = [:]
            for ext in sidecarExtensions {
                let candidates = (sidecarsByKey[g.key] ?? []).filter { $0.ext.lowercased() == ext }
                guard !candidates.isEmpty else { continue }
                let pick =
                    candidates.first(where: { $0.base == chosen.base && $0.ext == ext })
                    ?? candidates.first(where: { $0.base == chosen.base })
                    ?? candidates.first(where: { $0.ext == ext })
                    ?? candidates[0]
                sidecars[ext] = folder + "/" + pick.name
                for other in candidates where other.name != pick.name {
                    setWarnings.append(
                        Diagnostic(
                            .warning, code: "duplicate_sidecar",
                            "\(rel(other.name)) differs only by case; \(pick.name) is used and \(other.name) is ignored",
                            file: rel(chosen.name)))
                }
            }
            out.append(
                DiscoveredShapefile(
                    relativePath: rel(chosen.name), shp: folder + "/" + chosen.name, shx: sidecars["shx"],
                    dbf: sidecars["dbf"], prj: sidecars["prj"], cpg: sidecars["cpg"],
                    memo: sidecars["dbt"] ?? sidecars["fpt"], baseName: chosen.base,
                    layerName: chosen.base, warnings: setWarnings))
        }
        // Sidecars with no .shp of their base in this folder.
        for p in parts where sidecarExtensions.contains(p.ext.lowercased()) && groupIndex[p.base.lowercased()] == nil {
            warnings.append(
                Diagnostic(
                    .warning, code: "orphan_sidecar", "no .shp named \(p.base) in the same folder; ignored", file: rel(p.name)))
        }
        return out
    }

    /// The names in a folder (without `.` and `..`), sorted in byte order, plus how many were not valid UTF-8.
    /// Nil when the folder cannot be opened (errno is set).
    static func list(_ folder: String) -> (names: [String], invalidNames: Int)? {
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
