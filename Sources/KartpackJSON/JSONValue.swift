/// A JSON value with ordered object members, so that writing it is deterministic (no dictionaries).
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer, written without a fraction.
    case int(Int64)
    /// A finite double, written in Swift's shortest round-trip form (`1.0`, `0.1`, `1e-07`).
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// Members in the order they are written.
    case object([(key: String, value: JSONValue)])

    /// Structural equality (object members compared in order).
    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The first member named `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string, for `.string`.
    public var stringValue: String? {
        if case .string(let s) = self { s } else { nil }
    }

    /// The number as an integer, for `.int` (and integral `.double` values in range).
    public var intValue: Int64? {
        switch self {
        case .int(let v): return v
        case .double(let d):
            guard d.rounded() == d, let v = Int64(exactly: d) else { return nil }
            return v
        default: return nil
        }
    }

    /// The number as a double, for `.int` and `.double`.
    public var doubleValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .double(let d): d
        default: nil
        }
    }

    /// The elements, for `.array`.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { a } else { nil }
    }

    /// The members, for `.object`.
    public var objectMembers: [(key: String, value: JSONValue)]? {
        if case .object(let m) = self { m } else { nil }
    }

    /// Compact JSON text (`JSONFormat.compact`): members in their stored order, no spaces, non-ASCII kept as UTF-8,
    /// control characters escaped. Throws for a non-finite double, which JSON cannot hold.
    public func serialized() throws(JSONWriteError) -> String {
        var w = JSONWriter(format: .compact)
        w.write(self)
        if let d = w.nonFinite { throw JSONWriteError(number: d) }
        return w.text
    }
}

/// A value JSON cannot hold: a non-finite number.
public struct JSONWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The number (infinite or NaN).
    public var number: Double

    /// `JSON cannot hold the number inf`.
    public var description: String { "JSON cannot hold the number \(number)" }
}
