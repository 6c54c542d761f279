import KartpackCore
import Shapefile

/// One Shapefile set found by `ShapefileDiscovery`: explicit paths of the `.shp` and its sidecars (any extension
/// case), and a layer name unique within the import.
package struct DiscoveredShapefile: Sendable, Hashable {
    /// The `.shp` path relative to the searched folder, `/`-separated (the sort key).
    package var relativePath: String
    /// The set's files (absolute, or root-relative as the root was given), grouped by `ShapefileGrouping`.
    package var files: ShapefileSet
    /// The output layer name: the base name, or `base_2`, `_3`, … when an earlier set (in `relativePath` order)
    /// already uses that name, compared ignoring case.
    package var layerName: String
    /// Problems with this set: `duplicate_shapefile` (extension-case variants of the same `.shp` that were not
    /// chosen), `duplicate_sidecar`, `layer_renamed`.
    package var warnings: [Diagnostic]

    /// The `.shp` path.
    package var shp: String { files.shp }
    /// The `.shp` file name without its extension.
    package var baseName: String { files.baseName }
}

/// What `ShapefileDiscovery` found in a folder tree.
package struct ShapefileDiscoveryResult: Sendable {
    /// Every Shapefile set, sorted by `relativePath` in byte order.
    package var shapefiles: [DiscoveredShapefile]
    /// Every GeoPackage (`.gpkg`, any case) as (path relative to the searched folder, path), sorted by the relative
    /// path in byte order; each of its feature tables becomes a layer.
    package var geoPackages: [(relativePath: String, path: String)] = []
    /// Problems outside any one set, in walk order: `symlink_skipped`, `special_file_skipped`,
    /// `unreadable_folder`, `folder_too_deep`, `unreadable_name`, `orphan_sidecar`.
    package var warnings: [Diagnostic]
}
