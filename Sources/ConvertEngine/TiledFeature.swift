import KartpackCore

/// Why one feature is not written, or what went wrong while writing it, with a stable reason code
/// (docs/diagnostics.md).
package struct FeatureIssue: Error, Sendable, Hashable {
    package var code: ReasonCode
    package var message: String
    /// Set by the feature chain of a clipped run when the feature had something inside the clip region before it
    /// was rejected: the package's metadata counts it (`ConvertReport.Input.insideClip`).
    var insideClip = false
}

/// What the feature chain made of one feature: the answer a worker sends back for each job.
package enum TiledFeature: Sendable {
    /// Cut into tile pieces.
    case tiled(Tiling)
    /// Not written.
    case rejected(FeatureIssue)

    /// A feature cut into tiles: its pieces and what happened on the way.
    package struct Tiling: Sendable {
        /// Pieces in tile order (zoom, x, y).
        var pieces: [TilePiece] = []
        /// The label point of a labelled polygon, one piece per zoom it is labelled at, in the one tile that holds
        /// it (written to the layer's `_labels` layer).
        var labelPieces: [TilePiece] = []
        /// Repairs applied, by kind (`make_valid`, `grid_repair`, `tiny_feature_kept`, `antimeridian_split`, …),
        /// counted once per feature.
        package var repairs: Set<ReasonCode> = []
        /// Zoom levels at which nothing was left (after simplification and quantization).
        var collapsedAt: [Int] = []
        /// Bounds in Web Mercator metres of what was tiled (every antimeridian copy).
        package var bounds = Bounds.empty
        /// The zooms the feature was tiled for (its layer's, narrowed by the style).
        package var zooms: ClosedRange<Int>
        /// Style decisions, when a stylesheet is used.
        var styled: StyledFeature?
        /// Problems that did not stop the feature (reported as warnings).
        package var warnings: [FeatureIssue] = []
        /// What the style asked of the feature's point on surface (descendant selectors), kept by the piece store.
        var surfacePoint = SurfacePoint.notAsked
    }
}
