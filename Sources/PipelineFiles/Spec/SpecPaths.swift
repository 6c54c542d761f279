import Glibc

/// Lexical path arithmetic for pipeline files: resolving relative paths against the pipeline's folder and
/// writing absolute paths back relative to it. Symbolic links are not followed (the same text gives the same
/// result on every machine).
package enum SpecPaths {
    /// `path` made absolute against `base` (an absolute folder) and normalized (`.`, `..`, repeated `/` removed).
    package static func absolute(_ path: String, base: String) -> String {
        path.hasPrefix("/") ? normalize(path) : normalize(base + "/" + path)
    }

    /// Removes `.` and empty components and resolves `..` lexically; `..` at the root stays at the root.
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for c in path.split(separator: "/", omittingEmptySubsequences: true) {
            if c == "." { continue }
            if c == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(c)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `path` (absolute) written relative to the folder `base` (absolute): `../SampleData/x.shp`; `.` when equal.
    package static func relative(_ path: String, to base: String) -> String {
        let p = normalize(path).split(separator: "/")
        let b = normalize(base).split(separator: "/")
        var common = 0
        while common < p.count, common < b.count, p[common] == b[common] { common += 1 }
        let ups = Array(repeating: Substring(".."), count: b.count - common)
        let parts = ups + p[common...]
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// The folder holding `path` (absolute): `/a/b/c.json` → `/a/b`.
    package static func folder(of path: String) -> String {
        let n = normalize(path)
        guard let slash = n.lastIndex(of: "/"), slash != n.startIndex else { return "/" }
        return String(n[..<slash])
    }

    /// The last component of a path.
    package static func fileName(_ path: String) -> String {
        String(path.split(separator: "/").last ?? "")
    }

    /// The process's working folder, or `/` when it cannot be read.
    static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
