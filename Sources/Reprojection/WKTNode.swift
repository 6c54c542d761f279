/// One value inside a WKT node: a nested node, a quoted string, or a bare token (a number or an enumeration such
/// as `north`, `ellipsoidal`).
enum WKTValue: Equatable, Sendable {
    case node(WKTNode)
    case string(String)
    case bare(String)
}

/// One node of a WKT tree: `KEYWORD[child, child, …]`.
///
/// The tree is Kartpack's own, built before PROJ sees any text, so that a `.prj` can be checked and cleaned
/// (see `WKTSanitizer`) with no PROJ code running on untrusted input.
struct WKTNode: Equatable, Sendable {
    /// The keyword as written (WKT keywords are case-insensitive; compare with `upperKeyword`).
    var keyword: String
    /// The children in order.
    var children: [WKTValue]

    /// The keyword in upper case, for case-insensitive comparisons.
    var upperKeyword: String { keyword.uppercased() }

    /// The nested nodes among the children, in order.
    var childNodes: [WKTNode] {
        children.compactMap { if case .node(let n) = $0 { n } else { nil } }
    }

    /// The first child when it is a quoted string (the name of most WKT objects).
    var firstString: String? {
        if case .string(let s)? = children.first { s } else { nil }
    }

    /// True when this node or any node below it has `keyword` (upper case).
    func contains(keyword upper: String) -> Bool {
        if upperKeyword == upper { return true }
        return childNodes.contains { $0.contains(keyword: upper) }
    }

    /// The node written back as compact WKT: `[` `]` brackets, `,` separators, strings quoted with `"` doubled.
    var wkt: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        out += keyword
        out += "["
        for (i, child) in children.enumerated() {
            if i > 0 { out += "," }
            switch child {
            case .node(let n): n.write(to: &out)
            case .string(let s):
                out += "\""
                out += s.replacingAll("\"", with: "\"\"")
                out += "\""
            case .bare(let b): out += b
            }
        }
        out += "]"
    }
}

extension String {
    /// Replaces every occurrence of a single-character string (no Foundation needed).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var out = ""
        out.reserveCapacity(count + 8)
        for c in self {
            if c == target { out += replacement } else { out.append(c) }
        }
        return out
    }
}
