import KartpackCore

/// One `[attribute …]` filter of a compound selector (zoom filters are `ZoomFilter`s).
public struct AttributeFilter: Sendable, Hashable, CustomStringConvertible {
    /// What the filter tests.
    public enum Test: Sendable, Hashable {
        /// `[a]` or `[a != null]`: the attribute exists and is not null (an empty string counts as present).
        case present
        /// `[a = null]`: the attribute is missing or null.
        case null
        /// `[a OP v]`. A missing or null attribute, or one whose type does not compare with `v` (see
        /// `FilterValue`), matches only `!=`: `[a != v]` is exactly "not `[a = v]`".
        case compare(ComparisonOperator, FilterValue)
        /// `[a ^= "p"]`: a text attribute starting with `p`.
        case prefix(String)
        /// `[a $= "s"]`: a text attribute ending with `s`.
        case suffix(String)
        /// `[a *= "p"]`: a text attribute containing `p`.
        case contains(String)
        /// `[a =~ "re"]`: a text attribute in which the expression finds a match.
        case regex(StyleRegex)
    }

    /// The attribute name as written; matched case-insensitively against feature attribute names.
    public var attribute: String
    /// What is tested.
    public var test: Test
    /// Where the `[` is.
    public var location: StyleLocation

    /// Creates a filter.
    public init(attribute: String, test: Test, location: StyleLocation) {
        self.attribute = attribute
        self.test = test
        self.location = location
    }

    /// The filter as it would be written in a sheet.
    public var description: String {
        let a = isPlainName(attribute) && attribute.lowercased() != "zoom" ? attribute : quoteStyleString(attribute)
        switch test {
        case .present: return "[\(a)]"
        case .null: return "[\(a) = null]"
        case .compare(let op, let v): return "[\(a) \(op) \(v)]"
        case .prefix(let s): return "[\(a) ^= \(quoteStyleString(s))]"
        case .suffix(let s): return "[\(a) $= \(quoteStyleString(s))]"
        case .contains(let s): return "[\(a) *= \(quoteStyleString(s))]"
        case .regex(let r): return "[\(a) =~ \(r)]"
        }
    }

    /// Whether a feature's value for the attribute (nil when the feature lacks it) passes the filter.
    public func matches(_ value: PropertyValue?) -> Bool { test.matches(value) }
}

/// True when `s` can be written as a bare word: `[A-Za-z_][A-Za-z0-9_-]*`.
func isPlainName(_ s: String) -> Bool {
    var first = true
    for u in s.unicodeScalars {
        let v = u.value
        let letter = (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) || v == 0x5F
        let digitOrDash = (0x30...0x39).contains(v) || v == 0x2D
        if first ? !letter : !(letter || digitOrDash) { return false }
        first = false
    }
    return !first
}
