internal import CProj

/// What `proj_identify` found for a CRS against the EPSG authority.
struct CRSIdentification: Equatable {
    /// The EPSG code of the best match (for a bound CRS, the code of its base CRS).
    var code: Int
    /// PROJ's confidence, 0…100.
    var confidence: Int
    /// The matching EPSG CRS's name.
    var name: String?
    /// True when the match is a bound CRS (a CRS plus a `TOWGS84`-style transformation) rather than a plain CRS.
    var isBound: Bool
}

extension ProjContext {
    /// Builds a CRS from an untrusted `.prj` text: sanitized first (`WKTSanitizer`), then parsed only with
    /// `proj_create_from_wkt`.
    func crsFromPrj(_ text: String, file: String?) throws(ProjectionError) -> (ProjObject, WKTSanitizer.Result) {
        let sanitized: WKTSanitizer.Result
        do {
            sanitized = try WKTSanitizer.sanitize(text)
        } catch {
            switch error {
            case .notWKT(let why): throw .unparseablePrj(file: file, detail: why)
            case .hostile(let why): throw .hostilePrj(file: file, reason: why)
            }
        }
        clearMessages()
        var warnings: PROJ_STRING_LIST? = nil
        var errors: PROJ_STRING_LIST? = nil
        let created = proj_create_from_wkt(raw, sanitized.wkt, nil, &warnings, &errors)
        let grammar = Self.strings(errors)
        proj_string_list_destroy(warnings)
        proj_string_list_destroy(errors)
        guard let created else {
            let detail =
                grammar.isEmpty
                ? logText(or: "PROJ could not build a CRS from it") : grammar.joined(separator: "; ")
            throw .unparseablePrj(file: file, detail: "PROJ says: " + detail)
        }
        let crs = ProjObject(created, context: self)
        guard crs.isCRS else {
            throw .unparseablePrj(file: file, detail: "the WKT describes \(crs.name ?? "an object") that is not a CRS")
        }
        return (crs, sanitized)
    }

    /// Builds a CRS from text the user typed (`--source-crs`): any definition PROJ accepts ("EPSG:3006", a PROJ
    /// string, WKT, PROJJSON). The user is trusted, so this goes through `proj_create`, with network access off as
    /// on every context. A PROJ string without `+type=crs` gets it appended, as `cs2cs` does.
    func crsFromOverride(_ text: String) throws(ProjectionError) -> (ProjObject, definition: String) {
        let trimmed = text.trimmedWhitespace
        guard !trimmed.isEmpty else { throw .badOverride(text: text, detail: "it is empty") }
        var definition = trimmed
        if definition.hasPrefix("+"), !definition.lowercased().contains("type=crs") {
            definition += " +type=crs"
        }
        clearMessages()
        guard let created = proj_create(raw, definition) else {
            throw .badOverride(text: text, detail: logText(or: "PROJ could not parse it"))
        }
        let crs = ProjObject(created, context: self)
        guard crs.isCRS else {
            throw .badOverride(text: text, detail: "it describes \(crs.name ?? "an object") that is not a CRS")
        }
        return (crs, definition)
    }

    /// The EPSG CRS with this code from `proj.db`, or nil.
    func crsFromEPSG(_ code: Int) -> ProjObject? {
        clearMessages()
        guard let created = proj_create_from_database(raw, "EPSG", String(code), PJ_CATEGORY_CRS, 0, nil) else {
            return nil
        }
        return ProjObject(created, context: self)
    }

    /// The best EPSG match for a CRS (highest confidence, first in PROJ's order on ties), or nil.
    func identify(_ crs: ProjObject) -> CRSIdentification? {
        clearMessages()
        var confidences: UnsafeMutablePointer<Int32>? = nil
        guard let list = proj_identify(raw, crs.raw, "EPSG", nil, &confidences) else {
            proj_int_list_destroy(confidences)
            return nil
        }
        defer {
            proj_list_destroy(list)
            proj_int_list_destroy(confidences)
        }
        var best: CRSIdentification?
        for i in 0..<proj_list_get_count(list) {
            let confidence = Int(confidences?[Int(i)] ?? 0)
            guard let candidate = proj_list_get(raw, list, i) else { continue }
            let match = ProjObject(candidate, context: self)
            var idSource = match
            let isBound = match.type == PJ_TYPE_BOUND_CRS
            if isBound {
                guard let base = proj_get_source_crs(raw, match.raw) else { continue }
                idSource = ProjObject(base, context: self)
            }
            guard let auth = proj_get_id_auth_name(idSource.raw, 0), String(cString: auth) == "EPSG",
                let codeText = proj_get_id_code(idSource.raw, 0), let code = Int(String(cString: codeText))
            else { continue }
            if confidence > (best?.confidence ?? -1) {
                best = CRSIdentification(code: code, confidence: confidence, name: idSource.name, isBound: isBound)
            }
        }
        clearMessages()
        return best
    }

    /// Copies a NULL-terminated PROJ string list.
    static func strings(_ list: PROJ_STRING_LIST?) -> [String] {
        guard let list else { return [] }
        var out: [String] = []
        var i = 0
        while let s = list[i] {
            out.append(String(cString: s))
            i += 1
        }
        return out
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    var trimmedWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
