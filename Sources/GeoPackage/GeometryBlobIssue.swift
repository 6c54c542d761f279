import KartpackCore

/// Why one geometry value cannot become a feature: a stable reason code (docs/diagnostics.md) and what was found.
public struct GeometryBlobIssue: Error, Sendable, Hashable {
    /// The reason code: `bad_geometry_blob`, `bad_wkb`, `unsupported_geometry_type`, `too_complex`,
    /// `mixed_geometry_collection`, `empty_geometry`, `non_finite_coordinate`, `out_of_domain`, `srs_mismatch`.
    public var code: ReasonCode
    /// What was wrong, with the byte offset in the blob where it helps.
    public var message: String

    /// Creates an issue.
    public init(code: ReasonCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
