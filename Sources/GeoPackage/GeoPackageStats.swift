/// Live counters of a `GeoPackageReader`, the same counts a `ShapefileStats` keeps.
///
/// Once the reader is exhausted, `recordsInFile == recordsRead == featuresEmitted + skipped.values.sum()`.
public struct GeoPackageStats: Sendable, Hashable {
    /// Rows visited so far.
    public var recordsRead = 0
    /// Rows of the table (`count(*)` when the reader opened).
    public var recordsInFile = 0
    /// Features returned by `next()`.
    public var featuresEmitted = 0
    /// Skipped rows per reason code (`null_geometry`, `empty_geometry`, `bad_geometry_blob`, `bad_wkb`, …).
    public var skipped: [String: Int] = [:]
    /// Repairs per code, once per row (`closed_ring`, `removed_duplicates`, …).
    public var repaired: [String: Int] = [:]
    /// Attribute values stored as null per reason, per value.
    public var coercedToNull: [String: Int] = [:]
    /// Warnings per code, per occurrence.
    public var warnings: [String: Int] = [:]

    /// Creates empty counters.
    public init() {}

    /// The sum of all skip counts.
    public var totalSkipped: Int { skipped.values.reduce(0, +) }
}
