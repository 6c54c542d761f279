import KartpackCore

/// Strict, locale-free parsing of DBF attribute text (trimmed of blanks) and of FoxPro's binary fields.
enum DBFValueParser {
    /// The outcome of parsing one value.
    enum Outcome: Equatable {
        case value(PropertyValue)
        /// Null in the source (blank, `?`, an empty FoxPro datetime): not a coercion.
        case nullInSource
        /// Stored as null because the text is bad; `code` is the coercion reason, `message` the human text.
        case coerced(code: ReasonCode, message: String)
    }

    /// Parses a numeric (`N`/`F`) value. With `decimals == 0` the value is an `Int64` when it is an integer
    /// (wide fields too); otherwise a `Double`.
    static func number(_ text: String, decimals: Int) -> Outcome {
        let bytes = Array(text.utf8)
        if bytes.isEmpty { return .nullInSource }
        if bytes.allSatisfy({ $0 == 0x2A }) {
            return .coerced(
                code: .overflowMarker,
                message: "\"\(text)\" is dBASE's overflow marker (the value did not fit the field; shapelib and GDAL "
                    + "also write it for null)")
        }
        let lower = text.lowercased()
        if ["nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"].contains(lower) {
            return .coerced(code: .numberOutOfRange, message: "\"\(text)\" is not a finite number")
        }
        guard let isInteger = numberShape(bytes) else {
            return .coerced(code: .unparseableNumber, message: "\"\(text)\" is not a number")
        }
        if isInteger && decimals == 0 {
            if let v = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) { return .value(.int(v)) }
            return .coerced(code: .numberOutOfRange, message: "\"\(text)\" does not fit a 64-bit integer")
        }
        guard let d = Double(text), d.isFinite else {
            return .coerced(code: .numberOutOfRange, message: "\"\(text)\" is out of the range of a double")
        }
        if decimals == 0, d == d.rounded(), abs(d) < 9.2e18 {
            return .value(.int(Int64(d)))
        }
        return .value(.double(d))
    }

    /// `[+-]? digits [. digits] [(e|E) [+-]? digits]` with at least one mantissa digit: whether it is a plain
    /// integer, or nil for anything else.
    static func numberShape(_ b: [UInt8]) -> Bool? {
        var i = 0
        func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
        if i < b.count, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
        var digits = 0
        while i < b.count, isDigit(b[i]) {
            i += 1
            digits += 1
        }
        var isInteger = true
        if i < b.count, b[i] == 0x2E {
            isInteger = false
            i += 1
            while i < b.count, isDigit(b[i]) {
                i += 1
                digits += 1
            }
        }
        guard digits > 0 else { return nil }
        if i < b.count, b[i] == 0x65 || b[i] == 0x45 {
            isInteger = false
            i += 1
            if i < b.count, b[i] == 0x2B || b[i] == 0x2D { i += 1 }
            var expDigits = 0
            while i < b.count, isDigit(b[i]) {
                i += 1
                expDigits += 1
            }
            guard expDigits > 0 else { return nil }
        }
        guard i == b.count else { return nil }
        return isInteger
    }

    /// Parses a logical (`L`) value: T/t/Y/y → true, F/f/N/n → false, `?` or blank → null.
    static func logical(_ text: String) -> Outcome {
        switch text {
        case "", "?": .nullInSource
        case "T", "t", "Y", "y": .value(.bool(true))
        case "F", "f", "N", "n": .value(.bool(false))
        default: .coerced(code: .badLogical, message: "\"\(text)\" is not a logical value")
        }
    }

    /// Parses a date (`D`) value `YYYYMMDD` into `.string("YYYY-MM-DD")`; blank → null in the source; all zeros
    /// (`00000000`, or `0000` and blanks) → null, counted as `zero_date` (writers use it for "no date").
    static func date(_ text: String) -> Outcome {
        let b = Array(text.utf8)
        if b.isEmpty { return .nullInSource }
        if b.allSatisfy({ $0 == 0x30 || $0 == 0x20 }) {
            return .coerced(code: .zeroDate, message: "\"\(text)\" is an all-zero date (no date)")
        }
        let bad = Outcome.coerced(code: .badDate, message: "\"\(text)\" is not a valid YYYYMMDD date")
        guard b.count == 8, b.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return bad }
        func num(_ r: Range<Int>) -> Int { r.reduce(0) { $0 * 10 + Int(b[$1] - 0x30) } }
        let y = num(0..<4)
        let m = num(4..<6)
        let d = num(6..<8)
        guard y >= 1, (1...12).contains(m) else { return bad }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
        guard (1...days).contains(d) else { return bad }
        let s =
            String(decoding: b[0..<4], as: UTF8.self) + "-" + String(decoding: b[4..<6], as: UTF8.self) + "-"
            + String(decoding: b[6..<8], as: UTF8.self)
        return .value(.string(s))
    }

    // MARK: - FoxPro binary fields

    /// A FoxPro `I` field: 4-byte little-endian signed integer.
    static func int32(_ b: [UInt8]) -> Outcome {
        guard b.count == 4 else { return .coerced(code: .badBinaryValue, message: "\(b.count) bytes, not 4") }
        return .value(.int(Int64(b.int32LE(0))))
    }

    /// A FoxPro `B` field: 8-byte little-endian IEEE double; NaN and infinities are coerced to null.
    static func double64(_ b: [UInt8]) -> Outcome {
        guard b.count == 8 else { return .coerced(code: .badBinaryValue, message: "\(b.count) bytes, not 8") }
        let d = b.doubleLE(0)
        guard d.isFinite else { return .coerced(code: .numberOutOfRange, message: "\(d) is not a finite number") }
        return .value(.double(d))
    }

    /// A dBASE 7 `I` or `+` field: 4-byte big-endian integer with the sign bit flipped; all zeros is null.
    static func dBase7Integer(_ b: [UInt8]) -> Outcome {
        guard b.count == 4 else { return .coerced(code: .badBinaryValue, message: "\(b.count) bytes, not 4") }
        if b.allSatisfy({ $0 == 0 }) { return .nullInSource }
        let bits = b.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } ^ 0x8000_0000
        return .value(.int(Int64(Int32(bitPattern: bits))))
    }

    /// A dBASE 7 `O` field: 8-byte big-endian double whose sign bit is flipped (positive values) or whose bits are
    /// all inverted (negative values), so that the bytes sort as the numbers do; all zeros is null.
    static func dBase7Double(_ b: [UInt8]) -> Outcome {
        guard b.count == 8 else { return .coerced(code: .badBinaryValue, message: "\(b.count) bytes, not 8") }
        if b.allSatisfy({ $0 == 0 }) { return .nullInSource }
        let stored = b.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let d = Double(bitPattern: stored & (1 << 63) != 0 ? stored ^ (1 << 63) : ~stored)
        guard d.isFinite else { return .coerced(code: .numberOutOfRange, message: "\(d) is not a finite number") }
        return .value(.double(d))
    }

    /// A FoxPro `Y` field: 8-byte little-endian signed integer in units of 1/10 000.
    static func currency(_ b: [UInt8]) -> Outcome {
        guard b.count == 8 else { return .coerced(code: .badBinaryValue, message: "\(b.count) bytes, not 8") }
        var bits: UInt64 = 0
        for k in 0..<8 { bits |= UInt64(b[k]) << (8 * UInt64(k)) }
        return .value(.double(Double(Int64(bitPattern: bits)) / 10_000))
    }

    /// A FoxPro `T` field: Julian day number and milliseconds since midnight (both 4-byte little-endian) into
    /// `.string("YYYY-MM-DDTHH:MM:SS")` (with `.mmm` when the milliseconds are not whole seconds). All zeros or all
    /// blanks is an empty datetime (null in the source); days outside years 1…9999 or milliseconds beyond a day are
    /// `bad_date`.
    static func dateTime(_ b: [UInt8]) -> Outcome {
        guard b.count == 8 else { return .coerced(code: .badBinaryValue, message: "\(b.count) bytes, not 8") }
        if b.allSatisfy({ $0 == 0 }) || b.allSatisfy({ $0 == 0x20 }) { return .nullInSource }
        let day = Int(b.int32LE(0))
        let ms = Int(b.int32LE(4))
        let bad = Outcome.coerced(
            code: .badDate, message: "Julian day \(day) and \(ms) ms is not a valid FoxPro datetime")
        // Julian day 1721426 is 0001-01-01, 5373484 is 9999-12-31.
        guard (1_721_426...5_373_484).contains(day), (0..<86_400_000).contains(ms) else { return bad }
        let (y, m, d) = civilDate(julianDay: day)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var year = String(y)
        while year.count < 4 { year = "0" + year }
        var s = "\(year)-\(two(m))-\(two(d))T\(two(ms / 3_600_000)):\(two(ms / 60_000 % 60)):\(two(ms / 1000 % 60))"
        if ms % 1000 != 0 {
            var frac = String(ms % 1000)
            while frac.count < 3 { frac = "0" + frac }
            s += "." + frac
        }
        return .value(.string(s))
    }

    /// The proleptic Gregorian date of a Julian day number (Richards' algorithm, valid for day ≥ 0).
    static func civilDate(julianDay j: Int) -> (year: Int, month: Int, day: Int) {
        let f = j + 1401 + (((4 * j + 274_277) / 146_097) * 3) / 4 - 38
        let e = 4 * f + 3
        let g = (e % 1461) / 4
        let h = 5 * g + 2
        let day = (h % 153) / 5 + 1
        let month = ((h / 153 + 2) % 12) + 1
        let year = e / 1461 - 4716 + (12 + 2 - month) / 12
        return (year, month, day)
    }
}
