/// Checks and cleans the text of an untrusted `.prj` before PROJ parses it.
///
/// A `.prj` comes with the data, so it is treated as hostile: it must never make PROJ read a file or the network,
/// crash the process or hang it. PROJ 9.1.1 has known traps (c-libraries.md §5, hostile-inputs.md §4), and each
/// rule here closes one:
///
/// - **Size and shape.** At most `maxBytes` (64 KiB) of UTF-8 with no control characters (a NUL would also cut the
///   C string short); Kartpack's own tokenizer (`WKTParser`) must accept it, which caps nesting at 64 levels (deep
///   nesting overflows PROJ's stack) and the node count.
/// - **Only a CRS.** The first node must be a CRS keyword (`PROJCS`, `GEOGCS`, `GEOCCS`, `COMPD_CS`, `PROJCRS`,
///   `GEOGCRS`, `GEODCRS`, `BOUNDCRS`, `COMPOUNDCRS` and their long WKT2 spellings). PROJ strings, `+init=`,
///   URNs, PROJJSON and file names are never accepted from a `.prj`, and the caller only ever passes the cleaned
///   text to `proj_create_from_wkt`, never to `proj_create`.
/// - **`EXTENSION[…]` nodes are removed.** They carry PROJ strings (`+nadgrids=/any/path`) that PROJ honours: it
///   opens the file and blocks forever on a FIFO.
/// - **`BBOX[…]` nodes are removed.** A degenerate WKT2 `BBOX[-90,180,90,180]` makes
///   `proj_create_crs_to_crs_from_pj` recurse until the stack overflows (fixed in PROJ 9.2–9.3.1). The area of use
///   only guides the choice among candidate operations; when PROJ identifies the CRS, its EPSG definition (with
///   its area of use) is used anyway.
/// - **ESRI `VERTCS[…]`.** `VERTCS` with `VDATUM` can segfault `proj_create_from_wkt` (PROJ PR #4266, fixed in
///   9.5.1). ESRI writes a vertical CRS as a second top-level node (`PROJCS[…],VERTCS[…]`); Kartpack works in 2D,
///   so such trailing vertical nodes are dropped. A `VERTCS` anywhere else is refused.
/// - **No file references.** Any quoted string holding a PROJ-string key (`proj=`, `init=`, `grids=` as in
///   `+nadgrids=`/`+geoidgrids=`) is refused. A grid name in `PARAMETERFILE[…]` or `GEOIDMODEL[…]` must be a bare
///   file name (no `/`, `\`, `:`, `,`, `@`, leading `.` or `~`): PROJ then only looks in the search path, which
///   Kartpack pins to the proj-data directory. Names elsewhere may contain `/` ("NAD83 / UTM zone 15N").
enum WKTSanitizer {
    /// The largest `.prj` accepted, in bytes.
    static let maxBytes = 64 * 1024

    /// Keywords (upper case) accepted as the first node of a `.prj`.
    static let crsRootKeywords: Set<String> = [
        "PROJCS", "GEOGCS", "GEOCCS", "COMPD_CS",
        "PROJCRS", "PROJECTEDCRS", "GEOGCRS", "GEOGRAPHICCRS", "GEODCRS", "GEODETICCRS", "BOUNDCRS", "COMPOUNDCRS",
    ]

    /// Keywords (upper case) whose nodes are removed wherever they appear.
    static let strippedKeywords: Set<String> = ["EXTENSION", "BBOX"]

    /// Why a text was refused.
    enum Failure: Error, Equatable, Sendable {
        /// Not WKT at all, or broken WKT: PROJ would refuse it too.
        case notWKT(String)
        /// WKT that PROJ might accept but that is unsafe to hand to it.
        case hostile(String)
    }

    /// The cleaned text and what was removed from it.
    struct Result: Equatable, Sendable {
        /// Compact WKT, safe to pass to `proj_create_from_wkt`.
        var wkt: String
        /// Upper-case keywords of the removed nodes, one entry per node, in document order.
        var removed: [String]
    }

    /// Checks and cleans a `.prj` text; see the type's documentation for the rules.
    static func sanitize(_ text: String) throws(Failure) -> Result {
        guard text.utf8.count <= maxBytes else {
            throw .hostile("the .prj is \(text.utf8.count) bytes; more than \(maxBytes) is not a CRS definition")
        }
        // Trim a byte-order mark, whitespace and trailing NULs (some writers pad the file).
        var scalars = Substring(text).unicodeScalars
        while let f = scalars.first, f == "\u{FEFF}" || f == " " || f == "\t" || f == "\n" || f == "\r" {
            scalars.removeFirst()
        }
        while let l = scalars.last, l == "\0" || l == " " || l == "\t" || l == "\n" || l == "\r" {
            scalars.removeLast()
        }
        let trimmed = String(String.UnicodeScalarView(scalars))
        guard !trimmed.isEmpty else { throw .notWKT("the .prj is empty") }
        if let bad = trimmed.unicodeScalars.first(where: {
            ($0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r") || $0.value == 0x7F
        }) {
            throw .notWKT(
                "the .prj holds control character U+\(String(bad.value, radix: 16, uppercase: true)) "
                    + "(a binary or UTF-16 file?)")
        }
        let roots: [WKTNode]
        do {
            roots = try WKTParser.parse(trimmed)
        } catch {
            switch error {
            case .syntax:
                if let first = trimmed.unicodeScalars.first, !(first.properties.isAlphabetic || first == "_") {
                    throw .notWKT("it is not WKT: it must start with a keyword such as PROJCS or GEOGCS")
                }
                throw .notWKT("it is not well-formed WKT: \(error.message)")
            case .tooDeep, .tooManyNodes:
                throw .hostile(error.message)
            }
        }
        let root = roots[0]
        guard crsRootKeywords.contains(root.upperKeyword) else {
            throw .notWKT(
                "it starts with \(root.keyword)[, which is not a coordinate reference system "
                    + "(expected PROJCS, GEOGCS, PROJCRS, GEOGCRS, COMPD_CS, BOUNDCRS, …)")
        }
        var removed: [String] = []
        for extra in roots.dropFirst() {
            // ESRI's "PROJCS[…],VERTCS[…]": the vertical part is not needed for 2D data.
            guard extra.upperKeyword == "VERTCS" else {
                throw .notWKT("unexpected \(extra.keyword)[…] after the end of the CRS")
            }
            removed.append("VERTCS")
        }
        if root.contains(keyword: "VERTCS") {
            throw .hostile(
                "it holds an ESRI VERTCS[…] node inside the CRS, which can crash PROJ 9.1 (VERTCS with VDATUM)")
        }
        let cleaned = try clean(root, removed: &removed)
        return Result(wkt: cleaned.wkt, removed: removed)
    }

    /// Removes stripped nodes and checks every string, depth first. Depth is bounded by `WKTParser.maxDepth`.
    private static func clean(_ node: WKTNode, removed: inout [String]) throws(Failure) -> WKTNode {
        var out = WKTNode(keyword: node.keyword, children: [])
        out.children.reserveCapacity(node.children.count)
        let upper = node.upperKeyword
        for (index, child) in node.children.enumerated() {
            switch child {
            case .node(let n):
                if strippedKeywords.contains(n.upperKeyword) {
                    removed.append(n.upperKeyword)
                    continue
                }
                out.children.append(.node(try clean(n, removed: &removed)))
            case .string(let s):
                if let reason = unsafeString(s) {
                    throw .hostile("\(node.keyword)[\"\(shortened(s))\"] \(reason)")
                }
                if index == 0, upper == "PARAMETERFILE" || upper == "GEOIDMODEL" {
                    // The file name is the second child of PARAMETERFILE, the name of GEOIDMODEL is the first.
                    if upper == "GEOIDMODEL", let reason = unsafeFileName(s) {
                        throw .hostile("\(node.keyword)[\"\(shortened(s))\"] \(reason)")
                    }
                }
                if index == 1, upper == "PARAMETERFILE", let reason = unsafeFileName(s) {
                    throw .hostile("\(node.keyword)[…,\"\(shortened(s))\"] \(reason)")
                }
                out.children.append(child)
            case .bare:
                out.children.append(child)
            }
        }
        return out
    }

    /// Why a string anywhere in the WKT is unsafe, or nil. Catches PROJ strings smuggled into names, remarks or
    /// `PROJ-based` method parameters.
    static func unsafeString(_ s: String) -> String? {
        let lower = s.lowercased()
        for key in ["proj=", "init=", "grids="] where lower.contains(key) {
            return "holds a PROJ string (\(key)), which could make PROJ open files"
        }
        return nil
    }

    /// Why a grid file name is unsafe, or nil: only bare names, which PROJ looks up in its pinned search path.
    static func unsafeFileName(_ s: String) -> String? {
        if s.isEmpty { return "is an empty file name" }
        if s.hasPrefix(".") || s.hasPrefix("~") { return "is a relative file path" }
        for c in ["/", "\\", ":", ",", "@"] where s.contains(c) {
            return "is a file path or list (contains \(c)); only a bare grid name from proj-data is allowed"
        }
        return nil
    }

    private static func shortened(_ s: String) -> String {
        s.count <= 80 ? s : String(s.prefix(77)) + "..."
    }
}
