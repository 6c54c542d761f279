import KartpackJSON

/// Checks a CRS the user typed (`--source-crs`, a pipeline's `"crs"`) before PROJ sees it.
///
/// Such text is not trusted more than a `.prj`: a pipeline file may come from anyone, and a PROJ string can make
/// PROJ open any file (`+nadgrids=/path/to/fifo` blocks forever). Every kind of text PROJ accepts is checked:
///
/// - **A bare number, `AUTH:CODE`, a URN or a CRS name** is looked up in `proj.db` only; it may not hold `/`,
///   `\`, control characters or `://` (a URL is refused: give the EPSG code).
/// - **A PROJ string** (`+proj=…`, or `key=value` words): `+init=` is refused (it reads init files), and the
///   values of grid keys (`nadgrids`, `geoidgrids`, `grids`, `xy_grids`, `z_grids`, `file`) must be bare grid names,
///   optionally `@`-prefixed and comma-separated (`@null`, `@conus,@alaska`), which PROJ can only find in the
///   pinned proj-data search path.
/// - **WKT** goes through `WKTSanitizer`, exactly like a `.prj` (EXTENSION and BBOX removed, file paths and
///   PROJ strings inside refused), and its cleaned text is what PROJ parses.
/// - **PROJJSON** is parsed with Kartpack's JSON reader (64 levels at most); every string must be free of PROJ
///   strings, and every `value`/geoid model name a bare file name.
///
/// Beyond this, `ProjContext` refuses PROJ every file outside the proj-data directory (its file API), and
/// `IsolatedCRS` resolves the text in a short-lived child process with a time limit.
enum CRSOverrideSanitizer {
    /// The longest CRS text accepted.
    static let maxBytes = WKTSanitizer.maxBytes

    /// PROJ-string keys whose values name grid or other files.
    static let fileKeys: Set<String> = ["nadgrids", "geoidgrids", "grids", "xy_grids", "z_grids", "file"]

    /// The text to give PROJ (the cleaned WKT for WKT input, otherwise the text itself), or why it is refused.
    static func sanitize(_ text: String) throws(ProjectionError) -> String {
        func refuse(_ detail: String) -> ProjectionError { .badOverride(text: text, detail: detail) }
        guard text.utf8.count <= maxBytes else {
            throw refuse("it is \(text.utf8.count) bytes; more than \(maxBytes) is not a CRS definition")
        }
        if let bad = text.unicodeScalars.first(where: {
            ($0.value < 0x20 && $0 != "\t" && $0 != "\n" && $0 != "\r") || $0.value == 0x7F
        }) {
            throw refuse("it holds control character U+\(String(bad.value, radix: 16, uppercase: true))")
        }
        let t = text.trimmedWhitespace
        if t.hasPrefix("{") { return try checkPROJJSON(t, refuse: refuse) }
        if let first = t.unicodeScalars.first, first.properties.isAlphabetic, t.contains("[") {
            do {
                return try WKTSanitizer.sanitize(t).wkt
            } catch {
                switch error {
                case .notWKT(let why), .hostile(let why):
                    throw refuse(why.replacingOccurrences(of: "the .prj", with: "it"))
                }
            }
        }
        if t.hasPrefix("+") || t.contains("=") { return try checkPROJString(t, refuse: refuse) }
        if t.contains("://") { throw refuse("it is a URL; give the CRS as an EPSG code such as EPSG:3006") }
        if t.contains("\\") || (t.contains(":") && t.contains("/")) {
            throw refuse("it looks like a file path; give an EPSG code, a PROJ string, WKT or an exact CRS name")
        }
        return t
    }

    private static func checkPROJString(_ t: String, refuse: (String) -> ProjectionError) throws(ProjectionError)
        -> String
    {
        for word in t.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
            var token = Substring(word)
            if token.hasPrefix("+") { token = token.dropFirst() }
            let parts = token.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].lowercased()
            let value = parts.count > 1 ? String(parts[1]) : ""
            if key == "init" {
                throw refuse("+init= reads PROJ init files, which Kartpack never lets PROJ open; give an EPSG code")
            }
            if fileKeys.contains(key) {
                for item in value.split(separator: ",", omittingEmptySubsequences: false) {
                    let name = item.hasPrefix("@") ? String(item.dropFirst()) : String(item)
                    if let why = WKTSanitizer.unsafeFileName(name) {
                        throw refuse("+\(key)=\(value): \(why)")
                    }
                }
            } else if value.contains("/") || value.contains("\\") {
                throw refuse("+\(key)=\(value) holds a path; PROJ may only read grids from proj-data")
            }
        }
        return t
    }

    private static func checkPROJJSON(_ t: String, refuse: (String) -> ProjectionError) throws(ProjectionError)
        -> String
    {
        let options = JSONParseOptions(maxDepth: 64, maxBytes: maxBytes)
        let value: JSONValue
        do {
            value = try JSONParser.parseDocument(Array(t.utf8), options: options).value
        } catch {
            throw refuse("it is not valid PROJJSON: \(error.message)")
        }
        func walk(_ v: JSONValue, key: String?, parentKey: String?) throws(ProjectionError) {
            switch v {
            case .string(let s):
                if let why = WKTSanitizer.unsafeString(s) { throw refuse("\"\(key ?? "")\": \(why)") }
                let isFileName = key == "value" || (key == "name" && parentKey == "geoid_model")
                if isFileName, let why = WKTSanitizer.unsafeFileName(s),
                    s.contains("/") || s.contains("\\")
                        || s.hasPrefix(".") || s.hasPrefix("~")
                {
                    throw refuse("\"\(key ?? "")\": \"\(s)\" \(why)")
                }
            case .array(let items):
                for item in items { try walk(item, key: key, parentKey: parentKey) }
            case .object(let members):
                for m in members { try walk(m.value, key: m.key, parentKey: key) }
            default:
                break
            }
        }
        try walk(value, key: nil, parentKey: nil)
        return t
    }
}
