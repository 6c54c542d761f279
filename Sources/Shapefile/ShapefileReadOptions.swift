/// Options for `ShapefileReader`.
public struct ShapefileReadOptions: Sendable, Hashable {
    /// An explicit attribute encoding (`--encoding`), e.g. `CP1252`, `UTF-8`, `ISO-8859-1`, `CP850`.
    ///
    /// When set it always wins over the `.cpg` file and the DBF language-driver byte. Names are mapped like `.cpg`
    /// contents (`LATIN1`, `WINDOWS-1252`, `1252`, … are accepted); anything else must be an iconv name.
    public var encoding: String?

    /// Records with more vertices than this are skipped as `too_complex` (hostile-inputs.md §2 #22; shapelib's own
    /// cap is 50 M).
    public var maxVertices: Int

    /// Creates options.
    public init(encoding: String? = nil, maxVertices: Int = 10_000_000) {
        self.encoding = encoding
        self.maxVertices = maxVertices
    }
}
