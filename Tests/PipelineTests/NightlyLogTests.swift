import Foundation
import KartpackCore
import Testing

@testable import Nightly
@Suite struct NightlyLogTests {
    /// 2026-01-01T02:00:00.123Z
    private let formatter = JSONLogFormatter(clock: { 1_767_232_800.123 })

    @Test func diagnosticsBecomeOneSortedObjectPerLine() {
        let d = Diagnostic(
            .warning, code: .nullGeometry, "record has no \"shape\"\nskipped", file: "vägar.shp", record: 12)
        #expect(
            formatter.line(for: d)
                == #"{"code":"null_geometry","file":"vägar.shp","level":"warning","message":"record has no "#
                + #"\"shape\"\nskipped","offset":null,"record":12,"time":"2026-01-01T02:00:00.123Z"}"#
        )
    }

    @Test func plainMessagesHaveTheSameKeys() throws {
        let line = formatter.line(message: "up to date; nothing to do")
        #expect(
            line
                == #"{"code":null,"file":null,"level":"info","message":"up to date; nothing to do","offset":null,"#
                + #""record":null,"time":"2026-01-01T02:00:00.123Z"}"#
        )
        let error = formatter.line(level: "error", message: "lock held", code: .runFailed, file: "o.pmtiles")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(error.utf8)) as? [String: Any])
        #expect(object.keys.sorted() == ["code", "file", "level", "message", "offset", "record", "time"])
        #expect(object["level"] as? String == "error")
        #expect(object["code"] as? String == "run_failed")
        #expect(!error.contains("\n"))
    }

    @Test func timestampsAreUTC() {
        #expect(UTCTimestamp.format(secondsSince1970: 0) == "1970-01-01T00:00:00Z")
        #expect(
            UTCTimestamp.format(secondsSince1970: 1_767_232_800.5, milliseconds: true) == "2026-01-01T02:00:00.500Z")
        #expect(UTCTimestamp.format(secondsSince1970: 951_782_400) == "2000-02-29T00:00:00Z")
        let now = JSONLogFormatter().line(message: "x")
        #expect(now.contains(#""time":"20"#))
    }
}
