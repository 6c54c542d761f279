/// The one rule for which files of a folder form a Shapefile set, used by `convert` (`ShapefileLocator`),
/// `import` (`ShapefileDiscovery`) and the nightly fingerprint.
///
/// - A `.shp` is a name whose extension is `shp` in any case. Each distinct base name is its own set, even when two
///   base names differ only in case (`Roads.shp` and `roads.shp` are two layers); the same base with two
///   extension cases (`a.shp`, `a.SHP`) is one set: the lower-case extension wins, then byte order, and the other
///   is listed in `ignoredShapefiles`.
/// - A sidecar (`.shx`, `.dbf`, `.prj`, `.cpg`, and the memo file `.dbt` or `.fpt`, extension in any case) belongs to
///   the set with exactly its base
///   name; a sidecar whose base matches no `.shp` exactly goes to the `.shp` whose base equals it ignoring case,
///   when there is exactly one such `.shp` (a Windows export with `Roads.shp` and `roads.dbf`). Among several
///   candidates for one slot the exact base wins, then the lower-case extension, then byte order; the others are
///   listed in `ignoredSidecars`.
/// - Sidecars that belong to no set are `orphanSidecars`.
///
/// Names are compared as given (callers pass folder listings sorted in byte order, so results are deterministic).
public struct ShapefileGrouping: Sendable, Hashable {
    /// The sidecar extensions, lower case, in the order sets list them.
    public static let sidecarExtensions = ["shx", "dbf", "prj", "cpg", "dbt", "fpt"]

    /// One set and what was left out while forming it.
    public struct Group: Sendable, Hashable {
        /// The set's files (paths joined to the folder).
        public var set: ShapefileSet
        /// The `.shp` file name used.
        public var shpName: String
        /// Other `.shp` names of the same base (extension case variants), not used.
        public var ignoredShapefiles: [String]
        /// Sidecar names that competed for a slot and lost, with the name that was used.
        public var ignoredSidecars: [(used: String, ignored: String)]

        public static func == (a: Group, b: Group) -> Bool {
            a.set == b.set && a.shpName == b.shpName && a.ignoredShapefiles == b.ignoredShapefiles
                && a.ignoredSidecars.map(\.used) == b.ignoredSidecars.map(\.used)
                && a.ignoredSidecars.map(\.ignored) == b.ignoredSidecars.map(\.ignored)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(set)
            hasher.combine(shpName)
        }
    }

    /// The sets, in byte order of their `.shp` names.
    public var groups: [Group]
    /// Sidecar names that belong to no set.
    public var orphanSidecars: [String]

    /// Groups the regular file names of one folder; `folder` is joined to each name for the set's paths (empty
    /// for the current folder).
    public init(fileNames: [String], folder: String) {
        struct Part {
            var name: String
            var base: String
            var ext: String
        }
        var parts: [Part] = []
        for name in fileNames {
            guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { continue }
            parts.append(Part(name: name, base: String(name[..<dot]), ext: String(name[name.index(after: dot)...])))
        }
        // .shp files by exact base, in byte order of the first.
        var bases: [String] = []
        var shpByBase: [String: [Part]] = [:]
        for p in parts where p.ext.lowercased() == "shp" {
            if shpByBase[p.base] == nil { bases.append(p.base) }
            shpByBase[p.base, default: []].append(p)
        }
        // Where a sidecar goes: its exact base, else the one .shp base equal to it ignoring case.
        var basesByFolded: [String: [String]] = [:]
        for b in bases { basesByFolded[b.lowercased(), default: []].append(b) }
        var sidecars: [String: [Part]] = [:]
        var orphans: [String] = []
        for p in parts where Self.sidecarExtensions.contains(p.ext.lowercased()) {
            if shpByBase[p.base] != nil {
                sidecars[p.base, default: []].append(p)
            } else if let owners = basesByFolded[p.base.lowercased()], owners.count == 1 {
                sidecars[owners[0], default: []].append(p)
            } else {
                orphans.append(p.name)
            }
        }
        func join(_ name: String) -> String {
            if folder.isEmpty { return name }
            return folder.hasSuffix("/") ? folder + name : folder + "/" + name
        }
        groups = bases.map { base in
            let members = shpByBase[base] ?? []
            let chosen = members.first { $0.ext == "shp" } ?? members[0]
            var paths: [String: String] = [:]
            var ignored: [(used: String, ignored: String)] = []
            for ext in Self.sidecarExtensions {
                let candidates = (sidecars[base] ?? []).filter { $0.ext.lowercased() == ext }
                guard !candidates.isEmpty else { continue }
                let pick =
                    candidates.first { $0.base == base && $0.ext == ext } ?? candidates.first { $0.base == base }
                    ?? candidates.first { $0.ext == ext } ?? candidates[0]
                paths[ext] = join(pick.name)
                for other in candidates where other.name != pick.name { ignored.append((pick.name, other.name)) }
            }
            return Group(
                set: ShapefileSet(
                    shp: join(chosen.name), shx: paths["shx"], dbf: paths["dbf"], prj: paths["prj"], cpg: paths["cpg"],
                    memo: paths["dbt"] ?? paths["fpt"], baseName: base),
                shpName: chosen.name, ignoredShapefiles: members.map(\.name).filter { $0 != chosen.name },
                ignoredSidecars: ignored)
        }
        orphanSidecars = orphans
    }
}
