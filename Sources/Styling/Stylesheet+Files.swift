extension Stylesheet {
    /// Every file the sheet names with `url("…")` (SVG icons), resolved against the sheet's folder, in rule order
    /// and without repeats: inputs of a run that no output may overwrite.
    public var referencedFiles: [String] {
        let slash = file.lastIndex(of: "/")
        let folder = slash.map { String(file[..<$0]) } ?? "."
        var out: [String] = []
        for rule in rules {
            for d in rule.declarations {
                guard case .url(let path) = d.value else { continue }
                let resolved = path.hasPrefix("/") ? path : (folder.isEmpty ? "/" : folder) + "/" + path
                if !out.contains(resolved) { out.append(resolved) }
            }
        }
        return out
    }
}
