import KartpackJSON

/// Makes the URLs of a MapLibre style absolute for the browser, as `kartpack serve` hands out style files:
/// `sprite`, `glyphs`, and each source's `url` (also inside `pmtiles://`) and `tiles` resolve against the folder
/// URL the style was requested from.
enum StyleURLs {
    /// The rewritten style text, or nil when `bytes` is not a style (not a JSON object with `version` 8 and
    /// `layers`), which is then served as is.
    static func absolute(_ bytes: [UInt8], folderURL: String) -> [UInt8]? {
        guard let doc = try? JSONParser.parse(bytes), let members = doc.objectMembers,
            doc["version"]?.intValue == 8, doc["layers"]?.arrayValue != nil
        else { return nil }
        func url(_ u: String) -> String { resolve(u, folderURL: folderURL) }
        let rewritten = JSONValue.object(
            members.map { m in
                switch m.key {
                case "sprite", "glyphs":
                    if let s = m.value.stringValue { return (m.key, .string(url(s))) }
                    return m
                case "sources":
                    return (
                        m.key,
                        .object(
                            (m.value.objectMembers ?? []).map { s in
                                (s.key, source(s.value, url: url))
                            })
                    )
                default: return m
                }
            })
        return (try? rewritten.serialized()).map { Array($0.utf8) }
    }

    private static func source(_ value: JSONValue, url: (String) -> String) -> JSONValue {
        guard let members = value.objectMembers else { return value }
        return .object(
            members.map { m in
                if m.key == "url", let u = m.value.stringValue {
                    let pm = "pmtiles://"
                    return (m.key, .string(u.hasPrefix(pm) ? pm + url(String(u.dropFirst(pm.count))) : url(u)))
                }
                if m.key == "tiles", let list = m.value.arrayValue {
                    return (m.key, .array(list.map { $0.stringValue.map { JSONValue.string(url($0)) } ?? $0 }))
                }
                return m
            })
    }

    /// `u` against the folder URL `folderURL` (ending in `/`): absolute URLs stay, `/x` takes the folder URL's
    /// origin, `../` steps go up (never above the origin), anything else is appended.
    static func resolve(_ u: String, folderURL: String) -> String {
        if u.contains("://") || u.hasPrefix("data:") { return u }
        guard let schemeEnd = folderURL.range(of: "://") else { return folderURL + u }
        let afterScheme = folderURL[schemeEnd.upperBound...]
        let slash = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        let origin = String(folderURL[..<slash])
        if u.hasPrefix("/") { return origin + u }
        var dir = afterScheme[slash...].split(separator: "/").map(String.init)
        var rest = u[...]
        while true {
            if rest.hasPrefix("../") {
                if !dir.isEmpty { dir.removeLast() }
                rest = rest.dropFirst(3)
            } else if rest.hasPrefix("./") {
                rest = rest.dropFirst(2)
            } else {
                break
            }
        }
        return origin + "/" + dir.map { $0 + "/" }.joined() + rest
    }
}

extension StyleURLs {
    /// A file name as a URL path segment (`%XX` for what a path cannot hold).
    static func encoded(_ name: String) -> String {
        var out = ""
        for b in name.utf8 {
            let c = Character(Unicode.Scalar(b))
            if b < 0x80, c.isLetter || c.isNumber || "-._~".contains(c) {
                out.append(c)
            } else {
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded
            }
        }
        return out
    }
}

extension String {
    fileprivate var leftPadded: String { count == 1 ? "0" + self : self }
}
