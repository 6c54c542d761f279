import Glibc

/// ISO 8601 UTC timestamps (`2026-01-01T02:00:00Z`, or with milliseconds) without Foundation formatters.
package enum UTCTimestamp {
    /// Formats seconds since 1970 as `YYYY-MM-DDTHH:MM:SS[.mmm]Z`.
    package static func format(secondsSince1970 t: Double, milliseconds: Bool = false) -> String {
        // Whole milliseconds first (to the nearest), so 0.123 s is .123 despite binary fractions.
        let totalMs = (t * 1000).rounded()
        let wholeSeconds = milliseconds ? (totalMs / 1000).rounded(.down) : t.rounded(.down)
        var seconds = time_t(wholeSeconds)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00Z" }
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var out = "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
        out += "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
        if milliseconds {
            let ms = Int32(totalMs - wholeSeconds * 1000)
            out += "." + pad(min(999, max(0, ms)), 3)
        }
        return out + "Z"
    }

    /// The current time in seconds since 1970.
    package static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
