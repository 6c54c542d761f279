/// The files of one Shapefile layer, as found on disk.
public struct ShapefileSet: Sendable, Hashable {
    /// The `.shp` path (any extension case).
    public var shp: String
    /// The `.shx` index, nil when missing (the reader then rebuilds the index in memory).
    public var shx: String?
    /// The `.dbf` attributes, nil when missing.
    public var dbf: String?
    /// The `.prj` CRS text, nil when missing.
    public var prj: String?
    /// The `.cpg` code page, nil when missing.
    public var cpg: String?
    /// The memo file of `M` fields: `.dbt` (dBASE) or `.fpt` (FoxPro); nil when missing.
    public var memo: String?
    /// The file name without folder and extension; the layer name.
    public var baseName: String

    /// Creates a set from paths.
    public init(
        shp: String, shx: String? = nil, dbf: String? = nil, prj: String? = nil, cpg: String? = nil,
        memo: String? = nil, baseName: String
    ) {
        self.shp = shp
        self.shx = shx
        self.dbf = dbf
        self.prj = prj
        self.cpg = cpg
        self.memo = memo
        self.baseName = baseName
    }
}
