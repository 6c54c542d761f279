/// One attribute value. MVT has no null, so encoders omit `.null` values.
public enum PropertyValue: Sendable, Hashable {
    case string(String)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case bool(Bool)
    case null

    /// True for `.null`.
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The value as a double when it is numeric.
    public var numericValue: Double? {
        switch self {
        case .int(let v): Double(v)
        case .uint(let v): Double(v)
        case .double(let v): v
        default: nil
        }
    }
}

/// A feature's attributes in a fixed order (never a dictionary: output must be deterministic).
public struct Properties: Sendable, Hashable, RandomAccessCollection {
    /// The key/value pairs, in schema order.
    public var entries: [(key: String, value: PropertyValue)] {
        get { zip(keys, values).map { ($0, $1) } }
        set {
            keys = newValue.map(\.key)
            values = newValue.map(\.value)
        }
    }
    public private(set) var keys: [String]
    public private(set) var values: [PropertyValue]

    /// Creates properties from ordered pairs.
    public init(_ entries: [(String, PropertyValue)] = []) {
        keys = entries.map(\.0)
        values = entries.map(\.1)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }
    public subscript(position: Int) -> (key: String, value: PropertyValue) { (keys[position], values[position]) }

    /// The value for `key` (exact match), or nil when absent.
    public subscript(key: String) -> PropertyValue? {
        get { keys.firstIndex(of: key).map { values[$0] } }
        set {
            if let i = keys.firstIndex(of: key) {
                if let newValue {
                    values[i] = newValue
                } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// Appends a pair at the end (no duplicate check).
    public mutating func append(_ key: String, _ value: PropertyValue) {
        keys.append(key)
        values.append(value)
    }
}
