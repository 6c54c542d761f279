import ConvertEngine
/// One entry of `sources`: a Shapefile, or a GeoPackage feature table, that becomes one layer of the package.
package struct SourceSpec: Sendable, Hashable {
    /// Absolute path of the `.shp` or `.gpkg` (relative paths in the file are resolved against the pipeline's
    /// folder).
    package var path: String
    /// Layer name in the package (default: the file's base name); for a `.gpkg`, the feature table read.
    package var layer: String
    /// CRS overriding the `.prj`: `EPSG:3006`, a PROJ string or WKT.
    package var crs: String?
    /// Attribute encoding overriding the `.cpg` and the DBF code page.
    package var encoding: String?
    /// Attribute filter in the stylesheet selector syntax (`[BESTTYP != "Myr"][AREAL > 0.5]`), kept as text;
    /// the caller compiles it with the Styling module.
    package var filter: String?
    /// Attributes to keep (source names), in the order given; nil keeps every attribute.
    package var keep: [String]?
    /// Attribute renames, sorted by source name (their order has no meaning).
    package var rename: [AttributeRename]
    /// Lowest zoom for this layer; nil follows `tiles.minZoom`.
    package var minZoom: Int?
    /// Highest zoom for this layer; nil follows `tiles.maxZoom`.
    package var maxZoom: Int?
    /// The attribute whose value is the feature id (integer fields as they are, character fields hashed:
    /// `FeatureIDScheme`); nil numbers features by record.
    package var idField: String?
    /// What happens to a missing or repeated id: set (default `.reject`) exactly when `idField` is.
    package var idPolicy: FeatureIDScheme.Policy?
    /// The build is not published when this layer has fewer features.
    package var minFeatures: Int?
    /// The build is not published when this layer lost more than this share (0–1) of the features it had in the
    /// previous package; nil follows the top-level `maxShrink`.
    package var maxShrink: Double?
    /// A layer without features (after filters, or because its input was rejected) stops the publish.
    package var requireFeatures: Bool = false
    /// At most this many points per tile at each zoom (`max-points`), nil for no limit.
    package var maxPoints: Int?
    /// How the tile limits thin this layer (`auto`, `priority N`, `never`; the sheet's `thinning` syntax), kept as
    /// text and checked when the spec is compiled; nil follows the stylesheet.
    package var thinning: String?
    /// The attributes coalescing compares: a feature is never merged into a neighbour whose values differ; nil
    /// follows the stylesheet's `identity`.
    package var identity: [String]?

    /// Creates a source.
    package init(
        path: String, layer: String, crs: String? = nil, encoding: String? = nil, filter: String? = nil,
        keep: [String]? = nil, rename: [AttributeRename] = [], minZoom: Int? = nil, maxZoom: Int? = nil
    ) {
        self.path = path
        self.layer = layer
        self.crs = crs
        self.encoding = encoding
        self.filter = filter
        self.keep = keep
        self.rename = rename
        self.minZoom = minZoom
        self.maxZoom = maxZoom
    }

    /// The zooms this layer is written at: its own range intersected with the package's. Validation guarantees
    /// the intersection is not empty.
    package func zoomRange(within tiles: TileSpec) -> ClosedRange<Int> {
        let lo = max(minZoom ?? tiles.minZoom, tiles.minZoom)
        let hi = min(maxZoom ?? tiles.maxZoom, tiles.maxZoom)
        return lo...max(lo, hi)
    }

    /// The name an attribute is written under (after `rename`).
    package func outputName(of attribute: String) -> String {
        rename.first { $0.from == attribute }?.to ?? attribute
    }

    /// Keys accepted in a source.
    package static let keys = [
        "path", "layer", "crs", "encoding", "filter", "keep", "rename", "minZoom", "maxZoom", "idField", "idPolicy",
        "minFeatures", "maxShrink", "requireFeatures", "maxPoints", "thinning", "identity",
    ]
}
