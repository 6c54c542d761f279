import Foundation

/// How files are named in messages: for each path the program opened, the name the user knows it by — the path
/// as given in the pipeline or on the command line, relative to the export folder, and for a zip import the path
/// inside the zip (never the temporary extraction folder).
///
/// `relabel` applies the names to a diagnostic: its `file`, the paths in its text, and — when it has no `file` but
/// its message starts with a file's name (`avdelningar.dbf: bad .dbf header …`) — its `file` from that name.
/// Bare file names (what the reader puts in `file`) are mapped only when they are unique among the inputs.
public struct FileDisplayNames: Sendable {
    private var exact: [String: String] = [:]
    /// `exact`, longest path first (a path that contains another is replaced first).
    private var exactByLength: [(path: String, shown: String)] = []
    private var bare: [String: String?] = [:]
    private var folders: [(folder: String, shown: String)] = []
    private var shown: Set<String> = []

    /// No names: everything is shown as it is.
    public init() {}

    /// True when no name was added.
    public var isEmpty: Bool { exact.isEmpty && folders.isEmpty }

    /// Shows the file at `path` as `shownAs`; its bare name too, while no other file has that name.
    public mutating func add(path: String, shownAs: String) {
        exact[path] = shownAs
        exactByLength = exact.sorted { ($0.key.count, $0.key) > ($1.key.count, $1.key) }.map { ($0.key, $0.value) }
        shown.insert(shownAs)
        let name = Self.fileName(path)
        if let existing = bare[name] {
            if existing != shownAs { bare[name] = .some(nil) }
        } else {
            bare[name] = .some(shownAs)
        }
    }

    /// Shows every path under `folder` relative to it, after `shownAs` (`""` for the root of an extracted zip).
    public mutating func add(folder: String, shownAs: String) {
        let f = folder.hasSuffix("/") ? folder : folder + "/"
        folders.append((f, shownAs.isEmpty || shownAs.hasSuffix("/") ? shownAs : shownAs + "/"))
        folders.sort { $0.folder.count > $1.folder.count }
    }

    /// The name shown for a path or a bare file name.
    public func name(_ pathOrName: String) -> String {
        if let s = exact[pathOrName] { return s }
        if let s = bare[pathOrName], let s { return s }
        for f in folders where pathOrName.hasPrefix(f.folder) { return f.shown + pathOrName.dropFirst(f.folder.count) }
        return pathOrName
    }

    /// `text` with every known path (longest first) and folder replaced by its shown name, and every unique bare
    /// file name that stands alone (`avdelningar.dbf: …`, `(avdelningar.prj)`) by its shown path.
    public func rewrite(_ text: String) -> String {
        var out = text
        for (path, s) in exactByLength where out.contains(path) {
            out = out.replacingOccurrences(of: path, with: s)
        }
        for f in folders where out.contains(f.folder) {
            out = out.replacingOccurrences(of: f.folder, with: f.shown)
        }
        for (name, s) in bare where out.contains(name) {
            guard let s, s != name else { continue }
            out = Self.replacingStandalone(name, with: s, in: out)
        }
        return out
    }

    /// Characters that may stand right before and after a file name for it to count as standing alone.
    private static let before: Set<Character> = [" ", "(", "\"", "'", "\u{201C}"]
    private static let after: Set<Character> = [" ", ":", ")", ",", ";", "\"", "'", "\u{201D}", "."]

    private static func replacingStandalone(_ name: String, with shown: String, in text: String) -> String {
        var out = ""
        var rest = text[...]
        while let r = rest.range(of: name) {
            let prefix = rest[..<r.lowerBound]
            let previous = prefix.last ?? out.last
            let startOK = previous.map { before.contains($0) } ?? true
            let tail = rest[r.upperBound...]
            let endOK = tail.first.map { after.contains($0) } ?? true
            out += prefix
            out += startOK && endOK ? shown : name
            rest = tail
        }
        return out + rest
    }

    /// The diagnostic with its file and the paths in its message named as the user knows them. A diagnostic
    /// without a file whose message starts with a file's name (`avdelningar.dbf: bad .dbf header …`) gets that
    /// file, and the name leaves the message (it is printed as `file: message`).
    public func relabel(_ d: Diagnostic) -> Diagnostic {
        guard !isEmpty else { return d }
        var out = d
        out.message = rewrite(d.message)
        if let file = d.file {
            out.file = name(file)
        } else if let colon = out.message.range(of: ": ") {
            let head = String(out.message[..<colon.lowerBound])
            if shown.contains(head) {
                out.file = head
                out.message = String(out.message[colon.upperBound...])
            }
        }
        return out
    }

    private static func fileName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }
}
