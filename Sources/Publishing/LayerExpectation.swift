/// What one input set must deliver before a build is published (pipeline sources' `minFeatures`,
/// `maxShrink`, `requireFeatures`). Checked by `PublishCheck` against the conversion and the previous package.
package struct LayerExpectation: Sendable, Hashable {
    /// The input's layer name.
    package var layer: String
    /// Where it is in the pipeline (`sources[2]`), for messages; nil outside pipelines.
    package var source: String?
    /// The fewest features the layer may have.
    package var minFeatures: Int?
    /// The largest share (0–1) of the previous package's features of this layer the new build may lose.
    package var maxShrink: Double?
    /// A layer with no features (after filters) is an error instead of a warning; a skipped (rejected) layer too.
    package var requireFeatures: Bool

    /// Creates an expectation.
    package init(
        layer: String, source: String? = nil, minFeatures: Int? = nil, maxShrink: Double? = nil,
        requireFeatures: Bool = false
    ) {
        self.layer = layer
        self.source = source
        self.minFeatures = minFeatures
        self.maxShrink = maxShrink
        self.requireFeatures = requireFeatures
    }
}
