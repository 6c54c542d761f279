/// A `[zoom OP n]` filter: true at the zoom levels where the comparison holds.
public struct ZoomFilter: Sendable, Hashable, CustomStringConvertible {
    /// The comparison.
    public var op: ComparisonOperator
    /// The zoom it compares with (whole or not; zoom levels are whole).
    public var value: Double
    /// Where the `[` is.
    public var location: StyleLocation

    /// Creates a zoom filter.
    public init(op: ComparisonOperator, value: Double, location: StyleLocation) {
        self.op = op
        self.value = value
        self.location = location
    }

    /// Whether the filter holds at `zoom`.
    @inline(__always)
    public func matches(zoom: Int) -> Bool {
        let z = Double(zoom)
        return op.holds(z < value ? -1 : (z > value ? 1 : 0))
    }

    /// `[zoom >= 10]`.
    public var description: String { "[zoom \(op) \(formatNumber(value))]" }
}
