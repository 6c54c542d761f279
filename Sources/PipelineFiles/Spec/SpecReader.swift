import KartpackJSON

/// The members of one JSON object of a pipeline file, after unknown and duplicate keys were reported.
package struct SpecObject {
    /// Where the object is.
    package let path: JSONPath
    /// Its members in file order (unknown keys and later duplicates removed).
    package let members: [(key: String, value: JSONValue)]

    /// The value of `key`; nil when absent or `null` (null means "not set").
    package func value(_ key: String) -> JSONValue? {
        guard let v = members.first(where: { $0.key == key })?.value else { return nil }
        if case .null = v { return nil }
        return v
    }

    /// True when `key` is present with a non-null value.
    package func has(_ key: String) -> Bool { value(key) != nil }
}

/// Reads typed values out of a parsed pipeline document, collecting every problem with its JSON path instead of
/// stopping at the first.
package struct SpecReader {
    /// Problems found so far, in document order.
    private(set) var issues: [PipelineSpecIssue] = []

    /// Records a problem.
    package mutating func report(_ path: JSONPath, _ message: String) {
        issues.append(PipelineSpecIssue(path: path, message: message))
    }

    /// A short rendering of a value for `expected an integer, got "14"`.
    package static func describe(_ v: JSONValue) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return JSONWriter.canonicalNumber(d)
        case .string(let s):
            let shown = s.count > 40 ? String(s.prefix(40)) + "…" : s
            return JSONWriter.quoted(shown)
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The members of an object. Reports a non-object, every unknown key (with the closest known key) and every
    /// repeated key; returns nil only for a non-object.
    package mutating func object(_ v: JSONValue, at path: JSONPath, known: [String]) -> SpecObject? {
        guard case .object(let members) = v else {
            report(path, "expected an object, got \(Self.describe(v))")
            return nil
        }
        var kept: [(key: String, value: JSONValue)] = []
        for m in members {
            let p = path.appending(m.key)
            if !known.contains(m.key) {
                if let s = KeySuggestion.closest(to: m.key, among: known) {
                    report(p, "unknown key; did you mean \(s)?")
                } else {
                    report(p, "unknown key (known keys: \(known.joined(separator: ", ")))")
                }
            } else if kept.contains(where: { $0.key == m.key }) {
                report(p, "duplicate key")
            } else {
                kept.append(m)
            }
        }
        return SpecObject(path: path, members: kept)
    }

    /// An integer (an integral number such as `14` or `14.0`) within `range`.
    package mutating func int(_ object: SpecObject, _ key: String, in range: ClosedRange<Int>) -> Int? {
        guard let v = object.value(key) else { return nil }
        let path = object.path.appending(key)
        let n: Int
        switch v {
        case .int(let i):
            guard let x = Int(exactly: i) else {
                report(path, "must be between \(range.lowerBound) and \(range.upperBound), got \(i)")
                return nil
            }
            n = x
        case .double(let d) where d.rounded() == d && abs(d) < 9e15:
            n = Int(d)
        default:
            report(path, "expected an integer, got \(Self.describe(v))")
            return nil
        }
        guard range.contains(n) else {
            report(path, "must be between \(range.lowerBound) and \(range.upperBound), got \(n)")
            return nil
        }
        return n
    }

    /// A finite number within `range`.
    package mutating func double(_ object: SpecObject, _ key: String, in range: ClosedRange<Double>) -> Double? {
        guard let v = object.value(key) else { return nil }
        let path = object.path.appending(key)
        guard let d = v.doubleValue else {
            report(path, "expected a number, got \(Self.describe(v))")
            return nil
        }
        guard range.contains(d) else {
            report(
                path,
                "must be between \(JSONWriter.canonicalNumber(range.lowerBound)) and "
                    + "\(JSONWriter.canonicalNumber(range.upperBound)), got \(JSONWriter.canonicalNumber(d))"
            )
            return nil
        }
        return d
    }

    /// A boolean.
    package mutating func bool(_ object: SpecObject, _ key: String) -> Bool? {
        guard let v = object.value(key) else { return nil }
        guard case .bool(let b) = v else {
            report(object.path.appending(key), "expected true or false, got \(Self.describe(v))")
            return nil
        }
        return b
    }

    /// One of `choices` (a string, case-sensitive).
    package mutating func choice(_ object: SpecObject, _ key: String, _ choices: [String]) -> String? {
        guard let s = string(object, key) else { return nil }
        guard choices.contains(s) else {
            let listed = choices.map { JSONWriter.quoted($0) }.joined(separator: ", ")
            report(object.path.appending(key), "expected one of \(listed), got \(JSONWriter.quoted(s))")
            return nil
        }
        return s
    }

    /// A string; empty (or blank) strings are reported when `nonEmpty`.
    package mutating func string(_ object: SpecObject, _ key: String, nonEmpty: Bool = true) -> String? {
        guard let v = object.value(key) else { return nil }
        return string(v, at: object.path.appending(key), nonEmpty: nonEmpty)
    }

    /// A string at `path`.
    package mutating func string(_ v: JSONValue, at path: JSONPath, nonEmpty: Bool = true) -> String? {
        guard case .string(let s) = v else {
            report(path, "expected a string, got \(Self.describe(v))")
            return nil
        }
        if nonEmpty && s.allSatisfy({ $0.isWhitespace }) {
            report(path, "must not be empty")
            return nil
        }
        return s
    }

    /// An array, reporting a non-array.
    package mutating func array(_ object: SpecObject, _ key: String) -> [JSONValue]? {
        guard let v = object.value(key) else { return nil }
        guard case .array(let a) = v else {
            report(object.path.appending(key), "expected an array, got \(Self.describe(v))")
            return nil
        }
        return a
    }
}
