/// Options for `ShapefileReader`.
public struct ShapefileReadOptions: Sendable, Hashable {
    /// An explicit attribute encoding (`--encoding`), e.g. `CP1252`, `UTF-8`, `ISO-8859-1`, `CP850`.
    ///
    /// When set it always wins over the `.cpg` file and the DBF language-driver byte. Names are mapped like `.cpg`
    /// contents (`LATIN1`, `WINDOWS-1252`, `1252`, … are accepted); anything else must be an iconv name.
    public var encoding: String?

    /// Creates options.
    public init(encoding: String? = nil) {
        self.encoding = encoding
    }
}
