/// Decides the code page of `.dbf` text from the text itself, when neither a `.cpg` nor a known language-driver
/// byte declares it (issue 36).
///
/// Values that are valid UTF-8 are UTF-8 (a legacy value is valid UTF-8 by chance only in contrived cases). The
/// others are decoded in each of a small set of legacy code pages — the Windows and DOS pages of Western and
/// Central Europe, Cyrillic, Greek and Arabic, through glibc iconv (`TextDecoder`), no table written here — and each
/// reading is scored by two counts, added:
///
/// 1. how unlikely its characters are as text (`penalty`):
///    - a replacement character, a C1 control or an undefined byte: 10; box drawing: 5; another symbol: 2 (common
///      punctuation such as `’ “ ” – — … « » ° € £ § ©`: 0; a middle dot only between two letters, as in `l·l`);
///    - a word mixing scripts (Latin with Cyrillic, Greek or Arabic): 1 per non-ASCII letter;
///    - a Latin word with at least three non-ASCII letters and more of them than ASCII letters (`Ïðèâåò`,
///      Cyrillic read as CP1252; French `éwé` is fine), or of two or more non-ASCII capitals only (`ÚÓ`, CP1252
///      `éà` read as CP850): 1 per non-ASCII letter;
///    - a Greek final sigma `ς` inside a word: 1;
///    - in cased scripts, a non-ASCII capital after a small letter (`penedŠs`, CP850 read as CP1252), or a small
///      one after two capitals: 1;
/// 2. how many of its distinct non-ASCII letters no single language uses with the others (`foreignLetters`): for
///    each language written in that code page, the letters outside its CLDR exemplar letters (`exemplarLetters`,
///    generated from ICU); the count of the language that fits best. Czech `řeč` in CP1250 fits Czech; read as
///    CP1252 it is `øeè`, which no language writes.
///
/// The reading with the lowest score wins (ties go to the earlier code page in `candidates`). It must be clean
/// (penalties for at most 2 % of its non-ASCII characters), and every reading that differs from it must score
/// worse: when another scores as well (a lone `Ministère` is French in CP1252 and Czech `Ministčre` in CP1250;
/// Greek capitals read as Cyrillic ones), the text cannot tell, and the file is refused with both readings, never
/// guessed: a `.cpg` or `--encoding` declares it. One tie is decided: Windows CP1252 against the DOS Latin pages
/// only (a lone Swedish `DÖD` is Spanish `DÍD` in CP850), when CP1252's letters fit one language: read as CP1252,
/// with a warning (`Tie`).
enum EncodingDetector {
    /// The code pages tried, in order of preference, with their script.
    static let candidates: [(name: String, script: String)] = [
        ("CP1252", "Latin"), ("CP850", "Latin"), ("CP437", "Latin"), ("CP1250", "Latin"), ("CP852", "Latin"),
        ("CP1251", "Cyrillic"), ("CP866", "Cyrillic"), ("CP1253", "Greek"), ("CP1256", "Arabic"),
    ]

    /// What the text says.
    enum Outcome: Equatable {
        /// Every value is ASCII or valid UTF-8 (`utf8Values` of them hold non-ASCII bytes).
        case utf8(utf8Values: Int)
        /// Values that are not UTF-8 are in `name`; `language` is the CLDR language whose letters they fit best
        /// (nil when none fits all). `tie` is set when they read as well in a DOS Latin page (CP850, CP437 or
        /// CP852) and no better in any other page: `name` is then CP1252, what ArcGIS and GDAL assume for a table
        /// that declares nothing, and the reader warns with both readings (code `encoding_tie`).
        case legacy(name: String, legacyValues: Int, utf8Values: Int, language: String?, tie: Tie? = nil)
        /// No reading is clean, or two readings are equally good: why, with examples.
        case undecided(String)
    }

    /// A CP1252 reading that a DOS Latin page ties with.
    struct Tie: Equatable {
        /// Both readings with an example value, e.g. `CP1252 ("DÖD") as in CP850 ("DÍD")`.
        var readings: String
        /// The rival pages' numbers (`850`), what a `.cpg` would hold to read the table in one of them.
        var rivalPages: [String]
    }

    private struct Reading {
        var name: String
        var values: [String]
        var penalty: Int
        var foreign: Int
        var language: String?
        var score: Int { penalty + foreign }
    }

    static func detect(_ values: [[UInt8]]) -> Outcome {
        var legacy: [[UInt8]] = []
        var utf8 = 0
        for v in values {
            if String(validating: v, as: UTF8.self) != nil { utf8 += 1 } else { legacy.append(v) }
        }
        guard !legacy.isEmpty else { return .utf8(utf8Values: utf8) }
        let nonASCII = legacy.reduce(0) { $0 + $1.count { $0 >= 0x80 } }
        var readings: [Reading] = []
        for c in candidates {
            guard let decoder = TextDecoder(encoding: c.name) else { continue }
            let decoded = legacy.map { decoder.decode($0).0 }
            let (foreign, language) = foreignLetters(decoded, codePage: c.name)
            readings.append(
                Reading(
                    name: c.name, values: decoded, penalty: decoded.reduce(0) { $0 + penalty($1) }, foreign: foreign,
                    language: language))
        }
        guard let best = readings.min(by: { $0.score < $1.score }) else {
            return .undecided("iconv knows none of the code pages tried")
        }
        guard best.penalty * 50 <= nonASCII else {
            return .undecided(
                "no code page tried (\(candidates.map(\.name).joined(separator: ", "))) reads the text cleanly: the "
                    + "best, \(best.name), gives \(best.penalty) unlikely characters in \(nonASCII) (e.g. "
                    + "\"\(best.values[0].prefix(40))\")")
        }
        let others = readings.filter { $0.values != best.values }
        guard let rival = others.min(by: { $0.score < $1.score }), rival.score <= best.score else {
            return .legacy(name: best.name, legacyValues: legacy.count, utf8Values: utf8, language: best.language)
        }
        let k = best.values.indices.first { best.values[$0] != rival.values[$0] } ?? 0
        func reading(_ r: Reading) -> String {
            "\(r.name) (\"\(r.values[k].prefix(40))\"" + (r.language.map { ", letters of language \($0)" } ?? "") + ")"
        }
        let rivals = others.filter { $0.score <= best.score }
        if best.name == "CP1252", best.language != nil, rivals.allSatisfy({ dosLatin.contains($0.name) }) {
            let tie = Tie(
                readings: reading(best) + " as in " + rivals.map(reading).joined(separator: " and "),
                rivalPages: rivals.map { String($0.name.dropFirst(2)) })
            return .legacy(
                name: best.name, legacyValues: legacy.count, utf8Values: utf8, language: best.language, tie: tie)
        }
        return .undecided(
            "the text reads as well in \(reading(best)) as in \(reading(rival)), so it cannot tell its code page; "
                + "declare it with a .cpg file next to the .dbf holding the code page's number (e.g. "
                + "\(best.name.dropFirst(2)))")
    }

    /// The DOS Latin code pages a tie with CP1252 is decided against: their writers (dBASE and FoxPro for DOS) are
    /// decades old and mostly set the language-driver byte, while a table that declares nothing today comes from a
    /// Windows program.
    static let dosLatin: Set<String> = ["CP850", "CP437", "CP852"]

    /// How many of the distinct non-ASCII letters of `values` (lower-cased) lie outside the exemplar letters of the
    /// language written in `codePage` that they fit best, and that language (nil when no language of that code page
    /// fits all). Distinct letters, not occurrences: a name from another language repeated in many values (`bokmål`
    /// in a Basque list) weighs one letter, as often as it occurs.
    static func foreignLetters(_ values: [String], codePage: String) -> (Int, String?) {
        var letters: Set<Unicode.Scalar> = []
        for v in values {
            for u in v.unicodeScalars where u.value >= 0x80 && u.properties.isAlphabetic {
                let lower = u.properties.lowercaseMapping.unicodeScalars
                letters.insert(lower.count == 1 ? lower.first! : u)
            }
        }
        var best = (letters.count, nil as String?)
        for l in languages where l.codePages.contains(codePage) {
            let foreign = letters.subtracting(l.letters).count
            if foreign < best.0 { best = (foreign, foreign == 0 ? l.language : nil) }
        }
        return best
    }

    /// `exemplarLetters`, as sets.
    static let languages: [(language: String, codePages: Set<String>, letters: Set<Unicode.Scalar>)] =
        exemplarLetters.map {
            ($0.language, Set($0.codePages.split(separator: " ").map(String.init)), Set($0.letters.unicodeScalars))
        }

    /// How unlikely `s` is as text (see the type's documentation); 0 for plausible text.
    static func penalty(_ s: String) -> Int {
        var total = 0
        var word: [Unicode.Scalar] = []
        func endWord() {
            total += wordPenalty(word)
            word.removeAll(keepingCapacity: true)
        }
        let scalars = Array(s.unicodeScalars)
        for (i, u) in scalars.enumerated() {
            if u.properties.isAlphabetic {
                word.append(u)
                continue
            }
            endWord()
            guard u.value >= 0x80 else { continue }
            if u == "\u{FFFD}" || u.value < 0xA0 {
                total += 10
            } else if (0x2500...0x25FF).contains(u.value) {
                total += 5
            } else if u == "·" {
                // Catalan's l·l: between two letters only.
                let between =
                    i > 0 && i + 1 < scalars.count && scalars[i - 1].properties.isAlphabetic
                    && scalars[i + 1].properties.isAlphabetic
                total += between ? 0 : 2
            } else if !commonPunctuation.contains(u) {
                total += 2
            }
        }
        endWord()
        return total
    }

    /// Non-ASCII punctuation and signs ordinary text uses.
    static let commonPunctuation: Set<Unicode.Scalar> = Set("\u{A0}’‘“”„–—…«»°€£§©®±×²³½¼¾µ¿¡".unicodeScalars)

    private static func script(_ u: Unicode.Scalar) -> String {
        switch u.value {
        case 0..<0x250, 0x1E00..<0x1F00: "Latin"
        case 0x370..<0x400, 0x1F00..<0x2000: "Greek"
        case 0x400..<0x530: "Cyrillic"
        case 0x600..<0x700, 0x750..<0x780, 0xFB50..<0xFF00: "Arabic"
        default: "other"
        }
    }

    private static func wordPenalty(_ w: [Unicode.Scalar]) -> Int {
        let nonASCII = w.count { $0.value >= 0x80 }
        guard nonASCII > 0 else { return 0 }
        let scripts = Set(w.map(script))
        if scripts.count > 1 { return nonASCII }
        let only = scripts.first ?? "other"
        if only == "Latin" && nonASCII >= 3 && nonASCII > w.count - nonASCII { return nonASCII }
        if only == "Latin" && w.count >= 2 && nonASCII == w.count && w.allSatisfy(\.properties.isUppercase) {
            return nonASCII
        }
        guard only == "Latin" || only == "Cyrillic" || only == "Greek" else { return 0 }
        var p = 0
        // Greek's final sigma ends words: inside one it is Cyrillic т (0xF2) read as CP1253.
        if only == "Greek" { p += w.dropLast().count { $0 == "\u{3C2}" } }
        for i in w.indices.dropFirst() where w[i].value >= 0x80 {
            let c = w[i].properties
            if c.isUppercase && w[i - 1].properties.isLowercase {
                p += 1
            } else if c.isLowercase && i >= 2 && w[i - 1].properties.isUppercase && w[i - 2].properties.isUppercase {
                p += 1
            }
        }
        return p
    }
}
