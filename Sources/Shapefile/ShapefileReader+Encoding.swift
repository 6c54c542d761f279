import KartpackCore

extension ShapefileReader {
    /// Picks the attribute encoding: option, then `.cpg`, then a known LDID, then what the text itself says
    /// (`EncodingDetector` over `sample()`, the file's non-ASCII text). An LDID that declares a code page no table
    /// exists for (Mazovia, Kamenický) is read only when its text is ASCII or UTF-8.
    static func resolveEncoding(
        options: ShapefileReadOptions, cpgPath: String?, ldid: UInt8, dbfName: String,
        sample: () throws(ShapefileError) -> DBFTextSample, warn: (ReasonCode, String, String) -> Void
    ) throws(ShapefileError) -> (TextDecoder, EncodingInfo) {
        if let option = options.encoding {
            guard let name = CodePage.canonicalName(option), let dec = TextDecoder(encoding: name) else {
                throw .unknownEncoding(
                    file: dbfName, detail: "encoding option \"\(option)\"", reason: "not a known encoding")
            }
            return (dec, EncodingInfo(name: name, origin: "option", detail: option, confidence: "declared"))
        }
        var ignoredCPG: String?
        if let cpgPath {
            let cpg = try InputFile(path: cpgPath)
            let bytes = try cpg.bytes(at: 0, count: min(cpg.size, 257))
            let firstLine = bytes.prefix { $0 != 0x0A && $0 != 0x0D }
            let text = String(decoding: firstLine, as: UTF8.self).trimmingWhitespace
            if cpg.size > 256 {
                ignoredCPG = "the .cpg file is \(cpg.size) bytes, too large to be a code page name"
            } else if text.isEmpty {
                warn(.emptyCpg, "the .cpg file is empty; ignored", cpg.name)
            } else if let name = CodePage.canonicalName(text), let dec = TextDecoder(encoding: name) {
                return (dec, EncodingInfo(name: name, origin: "cpg", detail: text, confidence: "declared"))
            } else {
                ignoredCPG =
                    ["SYSTEM", "OEM"].contains(text.uppercased())
                    ? "the .cpg says \(text), the Windows \(text.uppercased() == "OEM" ? "OEM" : "ANSI") code page of "
                        + "the computer that wrote the file, which cannot be known here"
                    : "the .cpg says \"\(String(text.prefix(40)))\", not a code page iconv knows"
            }
            if let ignoredCPG { warn(.ignoredCpg, ignoredCPG + "; the text decides the encoding", cpg.name) }
        }
        if ldid != 0, let name = CodePage.forLanguageDriver(ldid), let dec = TextDecoder(encoding: name) {
            return (dec, EncodingInfo(name: name, origin: "ldid", detail: "LDID/\(ldid)", confidence: "declared"))
        }
        // Nothing trustworthy declares the encoding: the text decides.
        let noCPG = ignoredCPG == nil ? "no .cpg" : "an unusable .cpg"
        let untabled = CodePage.withoutTable(languageDriver: ldid)
        let why =
            ldid == 0
            ? "\(noCPG) and LDID 0"
            : "\(noCPG) and LDID/\(ldid), "
                + (untabled.map { "which declares \($0)" } ?? "a language driver of unknown code page")
        func untabledReason(_ page: String) -> String {
            "the text is not ASCII or UTF-8, and no code page table for \(page) exists here (glibc iconv and ICU have "
                + "none); re-export the table with a .cpg in a code page iconv knows (UTF-8, CP852)"
        }
        let text = try sample()
        let scope = text.truncated ? " (in the first \(text.values.count) distinct values)" : ""
        switch EncodingDetector.detect(text.values) {
        case .utf8(let n):
            guard let dec = TextDecoder(encoding: "UTF-8", utf8WithFallback: true) else {
                throw .unknownEncoding(file: dbfName, detail: why, reason: "iconv has no CP1252")
            }
            let what = n == 0 ? "all text is ASCII" : "all \(n) non-ASCII values are valid UTF-8"
            return (
                dec,
                EncodingInfo(
                    name: "UTF-8", origin: "detected", detail: "\(why): \(what)\(scope)",
                    confidence: n == 0 ? "ascii" : "high")
            )
        case .legacy(let name, let legacy, let utf8, let language):
            if let untabled { throw .unknownEncoding(file: dbfName, detail: why, reason: untabledReason(untabled)) }
            guard let dec = TextDecoder(utf8Else: name) else {
                throw .unknownEncoding(file: dbfName, detail: why, reason: "iconv has no \(name)")
            }
            var detail = "\(why): \(legacy) value(s) are not UTF-8 and read cleanly as \(name)"
            detail += (language.map { " (letters of language \($0))" } ?? "") + scope
            if utf8 > 0 { detail += "; \(utf8) value(s) are valid UTF-8 and read as UTF-8" }
            return (dec, EncodingInfo(name: name, origin: "detected", detail: detail, confidence: "high"))
        case .windowsOverDOS(let legacy, let utf8, let language, let readings):
            if let untabled { throw .unknownEncoding(file: dbfName, detail: why, reason: untabledReason(untabled)) }
            guard let dec = TextDecoder(utf8Else: "CP1252") else {
                throw .unknownEncoding(file: dbfName, detail: why, reason: "iconv has no CP1252")
            }
            warn(
                .encodingTie,
                "\(why): the text reads as well in \(readings); read as CP1252, what ArcGIS and GDAL assume for a "
                    + "table that declares nothing. If the text is wrong, add a .cpg file next to the .dbf holding the "
                    + "code page's number (e.g. 850)", dbfName)
            var detail = "\(why): \(legacy) value(s) are not UTF-8 and read as well in \(readings); CP1252 chosen"
            detail += (language.map { " (letters of language \($0))" } ?? "") + scope
            if utf8 > 0 { detail += "; \(utf8) value(s) are valid UTF-8 and read as UTF-8" }
            return (dec, EncodingInfo(name: "CP1252", origin: "detected", detail: detail, confidence: "tie"))
        case .undecided(let reason):
            throw .unknownEncoding(file: dbfName, detail: why, reason: untabled.map(untabledReason) ?? reason)
        }
    }
}
