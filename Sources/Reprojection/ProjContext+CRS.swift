internal import CProj
import Foundation

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

    /// Builds a CRS from text the user typed (`--source-crs`, a pipeline's `"crs"`): any definition PROJ accepts
    /// ("EPSG:3006", a PROJ string, WKT, PROJJSON, a URN) or an exact CRS name ("WGS 84"). The text is checked by
    /// `CRSOverrideSanitizer` first (no file paths, no `+init=`, WKT cleaned like a `.prj`), then goes through
    /// `proj_create`, with network access off and file access limited to proj-data as on every context.
    ///
    /// - A bare number is an EPSG code: `4326` means `EPSG:4326` (PROJ would look it up as a name).
    /// - A PROJ string without `+type=crs` gets it appended, as `cs2cs` does.
    /// - A plain name must match the CRS's name exactly (ignoring case, spaces, `_` and `-`): PROJ itself picks
    ///   the closest name, so a typo like `foo` would silently become "Amersfoort".
    func crsFromOverride(_ text: String) throws(ProjectionError) -> (ProjObject, definition: String) {
        let trimmed = text.trimmedWhitespace
        guard !trimmed.isEmpty else { throw .badOverride(text: text, detail: "it is empty") }
        // Checked like a .prj: no file paths, +init=, URLs; WKT cleaned by WKTSanitizer (CRSOverrideSanitizer).
        var definition = try CRSOverrideSanitizer.sanitize(trimmed)
        if !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) {
            definition = "EPSG:" + trimmed
        }
        if definition.hasPrefix("+"), !definition.lowercased().contains("type=crs") {
            definition += " +type=crs"
        }
        clearMessages()
        guard let created = proj_create(raw, definition) else {
            throw .badOverride(text: text, detail: Self.sayOnce(logText(or: "PROJ could not parse it")))
        }
        let crs = ProjObject(created, context: self)
        guard crs.isCRS else {
            throw .badOverride(text: text, detail: "it describes \(crs.name ?? "an object") that is not a CRS")
        }
        if Self.isPlainName(definition) {
            let found = crs.name ?? ""
            guard Self.nameKey(found) == Self.nameKey(definition) else {
                let code = identify(crs).map { " (EPSG:\($0.code))" } ?? ""
                throw .badOverride(
                    text: text,
                    detail: "no CRS has exactly this name (PROJ's closest match is \"\(found)\"\(code)); give an EPSG "
                        + "code such as EPSG:4326, or the exact name")
            }
        }
        return (crs, definition)
    }

    /// True for override text that is neither an `AUTH:CODE`, a URN, a PROJ string, WKT nor PROJJSON.
    static func isPlainName(_ s: String) -> Bool {
        !s.contains(":") && !s.hasPrefix("+") && !s.contains("[") && !s.contains("{") && !s.contains("=")
    }

    /// A CRS name for comparison: lower case without spaces, `_` and `-`.
    static func nameKey(_ s: String) -> String {
        String(s.lowercased().filter { $0 != " " && $0 != "_" && $0 != "-" })
    }

    /// PROJ's message with repeated list items said once ("several objects matching this name: A, A" → "…: A").
    static func sayOnce(_ message: String) -> String {
        message.components(separatedBy: "; ").map { part -> String in
            guard let colon = part.range(of: ": ", options: .backwards) else { return part }
            let items = part[colon.upperBound...].components(separatedBy: ", ")
            var seen: Set<String> = []
            let unique = items.filter { seen.insert($0).inserted }
            return unique.count == items.count ? part : part[..<colon.upperBound] + unique.joined(separator: ", ")
        }.joined(separator: "; ")
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

    /// The name of the CRS's (horizontal) datum, or nil.
    func datumName(_ crs: ProjObject) -> String? {
        guard let d = proj_crs_get_datum_forced(raw, crs.raw) else { return nil }
        return ProjObject(d, context: self).name
    }

    /// True when the CRS's datum has no real name (ESRI's `D_unknown`, `unknown`, "Unknown based on WGS 84
    /// ellipsoid", "Not specified (based on WGS 84 spheroid)") and its ellipsoid is WGS 84's
    /// (a = 6 378 137 m, 1/f = 298.257223563).
    func hasUnnamedDatumOnWGS84(_ crs: ProjObject) -> Bool {
        clearMessages()
        defer { clearMessages() }
        guard let d = proj_crs_get_datum_forced(raw, crs.raw) else { return false }
        let datum = ProjObject(d, context: self)
        let name = (datum.name ?? "").lowercased()
        let unnamed =
            name.isEmpty || name == "unknown" || name == "d_unknown" || name.hasPrefix("unknown based on")
            || name.hasPrefix("not specified") || name == "none" || name == "d_none"
        guard unnamed, let e = proj_get_ellipsoid(raw, crs.raw) else { return false }
        let ellipsoid = ProjObject(e, context: self)
        var a = 0.0
        var b = 0.0
        var computed: Int32 = 0
        var invf = 0.0
        guard proj_ellipsoid_get_parameters(raw, ellipsoid.raw, &a, &b, &computed, &invf) != 0 else { return false }
        return abs(a - 6_378_137) < 1e-6 && abs(invf - 298.257223563) < 1e-9
    }

    /// True when `candidate` (an EPSG CRS on the WGS 84 datum) describes the same coordinates as `crs` (an unnamed
    /// datum on the WGS 84 ellipsoid): their PROJ strings agree once the candidate's `+datum=WGS84` is read as
    /// `+ellps=WGS84`.
    func matchesExceptDatumName(_ crs: ProjObject, _ candidate: ProjObject) -> Bool {
        clearMessages()
        defer { clearMessages() }
        guard let mine = proj_as_proj_string(raw, crs.raw, PJ_PROJ_5, nil),
            let theirs = proj_as_proj_string(raw, candidate.raw, PJ_PROJ_5, nil)
        else { return false }
        let ours = String(cString: mine)
        let other = String(cString: theirs)
        guard other.contains("+datum=WGS84") else { return false }
        return ours == other.replacingOccurrences(of: "+datum=WGS84", with: "+ellps=WGS84")
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

extension ProjContext {
    /// Builds `definition` with `proj_create` **without** the sanitizers and sets up its transformation to WGS 84;
    /// true when both succeed. Only for tests that prove the file API (`ProjFileAccess`) on its own: never call it
    /// with text from a user or a file.
    func buildsTransformBypassingSanitizers(_ definition: String) -> Bool {
        clearMessages()
        guard let created = proj_create(raw, definition) else { return false }
        let crs = ProjObject(created, context: self)
        guard let wgs84 = crsFromEPSG(4326),
            let op = proj_create_crs_to_crs_from_pj(raw, crs.raw, wgs84.raw, nil, nil)
        else { return false }
        let operation = ProjObject(op, context: self)
        var xy = [18.0, 59.0]
        _ = xy.withUnsafeMutableBufferPointer { b in
            proj_trans_generic(
                operation.raw, PJ_FWD, b.baseAddress, 16, 1, b.baseAddress! + 1, 16, 1, nil, 0, 0, nil, 0, 0)
        }
        return true
    }
}
