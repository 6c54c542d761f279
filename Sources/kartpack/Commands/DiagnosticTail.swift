import KartpackCore
import Nightly

/// What a run prints about its diagnostics besides the first ones of each code: ordinary, intended or expected
/// findings are counted in one `info` line per code instead of a warning per record, and a code whose warnings
/// passed the per-code limit ends with "…and N more" (text and JSON logs alike).
enum DiagnosticTail {
    /// Codes that are ordinary in real exports or the sheet's intent: counted, not printed per record.
    static let ordinary: [ReasonCode: String] = [
        .overflowMarker:
            "numbers stored as dBASE's `***` overflow marker (GDAL writes it for numeric nulls), read as null",
        .encodingFallback: "text values that are not UTF-8 in a file without .cpg, decoded as CP1252",
        .excludedByStyle: "features the stylesheet excludes (`exclude: true`)",
        .outsideStyleZoomRange: "features the stylesheet shows at no zoom of the package",
        .filteredOut: "features the input's filter leaves out",
        .outsideRegion: "features outside the clip region",
    ]

    /// True when a diagnostic is printed as it arrives.
    static func printsEach(_ d: Diagnostic) -> Bool {
        d.severity == .error || ordinary[d.code] == nil
    }

    /// Runs `body` with `sink`, then prints the tail (also when `body` throws), before the caller's last words.
    static func around<T>(_ sink: DiagnosticSink, quiet: Bool, json: Bool = false, _ body: (DiagnosticSink) throws -> T)
        rethrows -> T
    {
        defer { print(sink, quiet: quiet, json: json) }
        return try body(sink)
    }

    /// The lines of the tail: `(level, code, message)`.
    static func lines(_ sink: DiagnosticSink, quiet: Bool) -> [(level: String, code: ReasonCode, message: String)] {
        let samples = sink.samples
        var out: [(String, ReasonCode, String)] = []
        for (code, count) in sink.counts {
            guard let first = samples.first(where: { $0.code == code }) else { continue }
            if let what = ordinary[code], first.severity == .warning {
                if !quiet { out.append(("info", code, "\(count) × \(code): \(what) (counted in the report)")) }
                continue
            }
            let shownSeverity = first.severity == .error || (!quiet && first.severity == .warning)
            let shown = samples.reduce(0) { $0 + ($1.code == code ? 1 : 0) }
            guard shownSeverity, count > shown else { continue }
            out.append((first.severity.rawValue, code, "…and \(count - shown) more \(code) (\(count) in all)"))
        }
        return out
    }

    static func print(_ sink: DiagnosticSink, quiet: Bool, json: Bool) {
        let formatter = JSONLogFormatter()
        for l in lines(sink, quiet: quiet) {
            if json {
                Console.errRaw(formatter.line(level: l.level, message: l.message, code: l.code) + "\n")
            } else {
                Console.error("\(l.level): \(l.message)")
            }
        }
    }
}
