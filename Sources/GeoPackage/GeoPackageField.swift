import KartpackCore
import SQLiteStore

/// How one attribute column of a feature table is read: its declared type (GeoPackage 1.2 Table 1) as a field
/// type, and each value by its own storage class (SQLite stores any value in any column).
///
/// `BOOLEAN` → logical (0/1); `TINYINT`, `SMALLINT`, `MEDIUMINT`, `INT`, `INTEGER` → integer; `FLOAT`, `DOUBLE`,
/// `REAL` → double; `TEXT`, `TEXT(n)` → string; `DATE` → date (`YYYY-MM-DD` text); `DATETIME` → string (ISO 8601
/// text as stored). `BLOB` columns are not read (`blob_field_skipped`, once per column). Other declared types go
/// by SQLite's affinity rules with an `unknown_field_type` warning. A value that does not fit its column's type is
/// null, counted (`unparseable_number`, `number_out_of_range`, `bad_logical`, `bad_date`); invalid UTF-8 is
/// replaced with U+FFFD (`invalid_utf8`).
struct GeoPackageField {
    enum Kind { case integer, double, logical, text, date }

    var name: String
    var kind: Kind
    var declared: String

    /// The reading of a column with declared type `declared`; nil for BLOB. `warning` is set for types outside
    /// the GeoPackage list.
    static func make(name: String, declared: String) -> (field: GeoPackageField?, warning: String?) {
        let upper = declared.uppercased()
        let base = upper.split(separator: "(").first.map { $0.trimmingCharacters(in: " ") } ?? ""
        let kind: Kind
        var warning: String?
        switch base {
        case "BOOLEAN": kind = .logical
        case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER": kind = .integer
        case "FLOAT", "DOUBLE", "REAL": kind = .double
        case "TEXT": kind = .text
        case "DATE": kind = .date
        case "DATETIME": kind = .text
        case "BLOB": return (nil, nil)
        default:
            // SQLite's affinity rules (§3.1 of its datatype documentation).
            if upper.contains("INT") {
                kind = .integer
            } else if upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT") {
                kind = .text
            } else if upper.contains("BLOB") || upper.isEmpty {
                return (nil, "field \(name) has no declared type (BLOB affinity); not read")
            } else if upper.contains("REAL") || upper.contains("FLOA") || upper.contains("DOUB") {
                kind = .double
            } else {
                kind = .double
            }
            warning = "field \(name) has type \(declared), not a GeoPackage type; read as \(kind)"
        }
        return (GeoPackageField(name: name, kind: kind, declared: declared), warning)
    }

    /// The schema field.
    var definition: FieldDefinition {
        let type: FieldType =
            switch kind {
            case .integer: .integer
            case .double: .double
            case .logical: .logical
            case .text: .string
            case .date: .date
            }
        // `TEXT(40)`: type TEXT, width 40 (as a DBF field's type letter and width).
        let parts = declared.split(separator: "(", maxSplits: 1)
        let width = parts.count == 2 ? Int(parts[1].dropLast().trimmingCharacters(in: " ")) ?? 0 : 0
        let base = parts.first.map { $0.trimmingCharacters(in: " ") } ?? declared
        return FieldDefinition(name: name, type: type, width: width, nativeType: base)
    }

    /// Column `i` of the current row; `issue` says why it was made null (or, for `invalid_utf8`, repaired).
    func value(_ stmt: SQLiteStatement, _ i: Int32) -> (value: PropertyValue, issue: GeometryBlobIssue?) {
        let storage = stmt.columnType(at: i)
        if storage == .null { return (.null, nil) }
        switch kind {
        case .integer:
            switch storage {
            case .integer: return (.int(stmt.int64(at: i)), nil)
            case .float:
                let d = stmt.double(at: i)
                guard d.isFinite, d.rounded() == d, abs(d) < 9.2e18 else {
                    return (.null, .init(code: .numberOutOfRange, "\(d) is not a 64-bit integer"))
                }
                return (.int(Int64(d)), nil)
            default:
                let text = stmt.text(at: i) ?? ""
                guard let v = Int64(text.trimmingCharacters(in: " ")) else {
                    return (.null, .init(code: .unparseableNumber, "\(Self.show(text)) is not an integer"))
                }
                return (.int(v), nil)
            }
        case .double:
            let d: Double
            switch storage {
            case .integer: d = Double(stmt.int64(at: i))
            case .float: d = stmt.double(at: i)
            default:
                let text = stmt.text(at: i) ?? ""
                guard let parsed = Double(text.trimmingCharacters(in: " ")) else {
                    return (.null, .init(code: .unparseableNumber, "\(Self.show(text)) is not a number"))
                }
                d = parsed
            }
            guard d.isFinite else { return (.null, .init(code: .numberOutOfRange, "\(d) is not finite")) }
            return (.double(d), nil)
        case .logical:
            guard storage == .integer, (0...1).contains(stmt.int64(at: i)) else {
                return (
                    .null,
                    .init(code: .badLogical, "\(Self.show(stmt.text(at: i) ?? "")) is not a BOOLEAN (0 or 1)")
                )
            }
            return (.bool(stmt.int64(at: i) == 1), nil)
        case .text, .date:
            guard storage != .blob else {
                return (.null, .init(code: .unparseableText, "a BLOB value in a \(declared) column"))
            }
            let bytes = stmt.utf8(at: i) ?? []
            let text = String(decoding: bytes, as: UTF8.self)
            if kind == .date, !Self.isDate(text) {
                return (.null, .init(code: .badDate, "\(Self.show(text)) is not a date YYYY-MM-DD"))
            }
            if String(validating: bytes, as: UTF8.self) == nil {
                return (.string(text), .init(code: .invalidUtf8, "invalid UTF-8 replaced with U+FFFD"))
            }
            return (.string(text), nil)
        }
    }

    /// `YYYY-MM-DD` with a real month and day.
    static func isDate(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return false }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9]
        guard digits.allSatisfy({ b[$0] >= 0x30 && b[$0] <= 0x39 }) else { return false }
        func num(_ r: [Int]) -> Int { r.reduce(0) { $0 * 10 + Int(b[$1] - 0x30) } }
        let y = num([0, 1, 2, 3])
        let m = num([5, 6])
        let d = num([8, 9])
        guard y >= 1, (1...12).contains(m) else { return false }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
        return (1...days).contains(d)
    }

    /// A value in a message: quoted, at most 40 characters.
    static func show(_ s: String) -> String {
        "\"" + (s.count > 40 ? String(s.prefix(40)) + "…" : s) + "\""
    }
}

extension StringProtocol {
    /// Without leading and trailing `c`.
    fileprivate func trimmingCharacters(in c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s.removeFirst() }
        while s.last == c { s.removeLast() }
        return String(s)
    }
}
