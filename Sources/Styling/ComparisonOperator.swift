/// The ordering and equality operators of attribute and zoom filters.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `=`
    case equal = "="
    /// `!=`
    case notEqual = "!="
    /// `<`
    case less = "<"
    /// `<=`
    case lessOrEqual = "<="
    /// `>`
    case greater = ">"
    /// `>=`
    case greaterOrEqual = ">="

    /// The operator as written.
    public var description: String { rawValue }

    /// True for `<`, `<=`, `>`, `>=`.
    public var isOrdering: Bool {
        switch self {
        case .equal, .notEqual: false
        default: true
        }
    }

    /// Whether the operator holds for a three-way comparison result (negative, zero or positive).
    @inline(__always)
    func holds(_ order: Int) -> Bool {
        switch self {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }
}
