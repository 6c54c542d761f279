/// Live counters of an input reader (`ShapefileReader`, `GeoPackageReader`): what every record read became.
///
/// Once the reader is exhausted, `recordsInFile == recordsRead == featuresEmitted + skipped.values.sum()`.
public struct ReaderStats: Sendable, Hashable, Codable {
    /// Records visited so far: `.shx` entries (or entries of the rebuilt index), GeoPackage rows.
    public var recordsRead: Int
    /// Records of the file: index entries, rows of the table.
    public var recordsInFile: Int
    /// Features returned by `next()`.
    public var featuresEmitted: Int
    /// Skipped records per reason code (`null_geometry`, `deleted_in_source`, `corrupt_record`, `type_mismatch`,
    /// `unknown_shape_type`, `bad_index_entry`, `bad_part_layout`, `empty_geometry`, `non_finite_coordinate`,
    /// `too_complex`; GeoPackage `bad_geometry_blob`, `bad_wkb`, …).
    public var skipped: [ReasonCode: Int]
    /// Repairs per code (`reoriented_rings`, `ring_assignment`, `closed_ring`, `dropped_ring`, `dropped_part`,
    /// `rebuilt_index`): counted once per record (once per file for `rebuilt_index`).
    public var repaired: [ReasonCode: Int]
    /// Attribute values stored as null (or, for `invalid_utf8`, with U+FFFD) per reason, counted per value:
    /// `unparseable_number`, `number_out_of_range`, `bad_date`, `bad_logical`, `invalid_utf8`.
    public var coercedToNull: [ReasonCode: Int]
    /// Warnings per code (`length_mismatch`, `encoding_fallback`, `undecodable_bytes`, …), counted per occurrence.
    public var warnings: [ReasonCode: Int]
    /// Rows the `.dbf` holds (after capping a lying header count); nil without a `.dbf` and for a GeoPackage.
    public var dbfRecordCount: Int?
    /// `.dbf` rows flagged as deleted that were visited (each also counted as skipped `deleted_in_source`).
    public var deletedRecords: Int

    /// Creates empty counters.
    public init(recordsInFile: Int = 0, dbfRecordCount: Int? = nil) {
        recordsRead = 0
        self.recordsInFile = recordsInFile
        featuresEmitted = 0
        skipped = [:]
        repaired = [:]
        coercedToNull = [:]
        warnings = [:]
        self.dbfRecordCount = dbfRecordCount
        deletedRecords = 0
    }

    /// Skip codes that are counted but are not errors: a null shape, a row deleted in the `.dbf`. A run whose only
    /// skips have these codes succeeds (docs/diagnostics.md).
    public static let informationalSkipCodes: Set<ReasonCode> = [.nullGeometry, .deletedInSource]

    /// The sum of all skip counts.
    public var totalSkipped: Int { skipped.values.reduce(0, +) }

    /// True when every visited record is accounted for as emitted or skipped.
    public var isBalanced: Bool { recordsRead == featuresEmitted + totalSkipped }
}
