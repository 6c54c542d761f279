import KartpackCore
import KartpackJSON

/// Formats log lines for `--log-format json`: one JSON object per line with sorted keys and a fixed set of
/// keys, so that `jq` and log shippers can rely on them:
///
/// `{"code":"null_geometry","file":"vagar.shp","level":"warning","message":"…","offset":null,"record":12,`
/// `"time":"2026-01-01T02:00:00.000Z"}` (one line).
///
/// `level` is `info`, `note`, `warning` or `error`; `code` is the diagnostic's stable code (null for plain
/// messages); absent values are `null`; `time` is UTC with milliseconds.
package struct JSONLogFormatter: Sendable {
    /// The clock, in seconds since 1970 (replaceable for tests).
    package let clock: @Sendable () -> Double

    /// Creates a formatter reading the system clock.
    package init() {
        self.clock = { UTCTimestamp.now() }
    }

    /// Creates a formatter reading `clock` (seconds since 1970).
    package init(clock: @escaping @Sendable () -> Double) {
        self.clock = clock
    }

    /// One line (without the newline) for a diagnostic.
    package func line(for diagnostic: Diagnostic) -> String {
        format(
            level: diagnostic.severity.rawValue, code: diagnostic.code, message: diagnostic.message,
            file: diagnostic.file, record: diagnostic.record, offset: diagnostic.offset)
    }

    /// One line for a plain message (progress, summary, an error that ends the run).
    package func line(level: String = "info", message: String, code: ReasonCode? = nil, file: String? = nil) -> String {
        format(level: level, code: code, message: message, file: file, record: nil, offset: nil)
    }

    private func format(level: String, code: ReasonCode?, message: String, file: String?, record: Int?, offset: Int?)
        -> String
    {
        func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        func optional(_ n: Int?) -> JSONValue { n.map { .int(Int64($0)) } ?? .null }
        let object: JSONValue = .object([
            ("code", optional(code?.rawValue)), ("file", optional(file)), ("level", .string(level)),
            ("message", .string(message)),
            ("offset", optional(offset)), ("record", optional(record)),
            ("time", .string(UTCTimestamp.format(secondsSince1970: clock(), milliseconds: true))),
        ])
        return object.text(.canonical)
    }
}
