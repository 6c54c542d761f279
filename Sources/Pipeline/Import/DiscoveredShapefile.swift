import KartpackCore
import Shapefile

/// One Shapefile set found by `ShapefileDiscovery`: explicit paths of the `.shp` and its sidecars (any extension
/// case), and a layer name unique within the import.
public struct DiscoveredShapefile: Sendable, Hashable {
    /// The `.shp` path relative to the searched folder, `/`-separated (the sort key).
    public var relativePath: String
    /// The absolute (or root-relative, as the root was given) path of the `.shp`.
    public var shp: String
    /// The `.shx` index, nil when missing.
    public var shx: String?
    /// The `.dbf` attributes, nil when missing.
    public var dbf: String?
    /// The `.prj` CRS text, nil when missing.
    public var prj: String?
    /// The `.cpg` code page, nil when missing.
    public var cpg: String?
    /// The memo file of `M` fields (`.dbt` or `.fpt`), nil when missing.
    public var memo: String? = nil
    /// The `.shp` file name without its extension.
    public var baseName: String
    /// The output layer name: `baseName`, or `baseName_2`, `_3`, … when an earlier set (in `relativePath` order)
    /// already uses that name, compared ignoring case.
    public var layerName: String
    /// Problems with this set: `duplicate_shapefile` (case variants of the same `.shp` that were not chosen),
    /// `duplicate_sidecar`, `layer_renamed`.
    public var warnings: [Diagnostic]

    /// The paths as a `ShapefileSet`, for `ShapefileReader(files:options:diagnostics:)`.
    public var files: ShapefileSet {
        ShapefileSet(shp: shp, shx: shx, dbf: dbf, prj: prj, cpg: cpg, memo: memo, baseName: baseName)
    }
}

/// What `ShapefileDiscovery` found in a folder tree.
public struct ShapefileDiscoveryResult: Sendable, Hashable {
    /// Every Shapefile set, sorted by `relativePath` in byte order.
    public var shapefiles: [DiscoveredShapefile]
    /// Problems outside any one set, in walk order: `symlink_skipped`, `special_file_skipped`,
    /// `unreadable_folder`, `folder_too_deep`, `unreadable_name`, `orphan_sidecar`.
    public var warnings: [Diagnostic]
}
