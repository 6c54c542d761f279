import KartpackCore

/// Strict, locale-free parsing of DBF attribute text (already trimmed by shapelib).
enum DBFValueParser {
    /// The outcome of parsing one value.
    enum Outcome: Equatable {
        case value(PropertyValue)
        /// Null in the source (blank, `*****`, `?`, `00000000`): not a coercion.
        case nullInSource
        /// Stored as null because the text is bad; `code` is the coercion reason, `message` the human text.
        case coerced(code: String, message: String)
    }

    /// Parses a numeric (`N`/`F`) value. With `decimals == 0` the value is an `Int64` when it is an integer
    /// (wide fields too); otherwise a `Double`.
    static func number(_ text: String, decimals: Int) -> Outcome {
        let bytes = Array(text.utf8)
        if bytes.isEmpty || bytes.allSatisfy({ $0 == 0x2A }) { return .nullInSource }
        let lower = text.lowercased()
        if ["nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"].contains(lower) {
            return .coerced(code: "number_out_of_range", message: "\"\(text)\" is not a finite number")
        }
        guard let isInteger = numberShape(bytes) else {
            return .coerced(code: "unparseable_number", message: "\"\(text)\" is not a number")
        }
        if isInteger && decimals == 0 {
            if let v = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) { return .value(.int(v)) }
            return .coerced(code: "number_out_of_range", message: "\"\(text)\" does not fit a 64-bit integer")
        }
        guard let d = Double(text), d.isFinite else {
            return .coerced(code: "number_out_of_range", message: "\"\(text)\" is out of the range of a double")
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
        default: .coerced(code: "bad_logical", message: "\"\(text)\" is not a logical value")
        }
    }

    /// Parses a date (`D`) value `YYYYMMDD` into `.string("YYYY-MM-DD")`; blank or `00000000` → null.
    static func date(_ text: String) -> Outcome {
        let b = Array(text.utf8)
        if b.isEmpty || b.allSatisfy({ $0 == 0x30 }) { return .nullInSource }
        let bad = Outcome.coerced(code: "bad_date", message: "\"\(text)\" is not a valid YYYYMMDD date")
        guard b.count == 8, b.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return bad }
        func num(_ r: Range<Int>) -> Int { r.reduce(0) { $0 * 10 + Int(b[$1] - 0x30) } }
        let y = num(0..<4)
        let m = num(4..<6)
        let d = num(6..<8)
        guard y >= 1, (1...12).contains(m) else { return bad }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
        guard (1...days).contains(d) else { return bad }
        let s = String(decoding: b[0..<4], as: UTF8.self) + "-" + String(decoding: b[4..<6], as: UTF8.self) + "-"
            + String(decoding: b[6..<8], as: UTF8.self)
        return .value(.string(s))
    }
}
