/// What one input layer must deliver before a build is published (pipeline sources' `minFeatures`,
/// `maxShrink`, `requireFeatures`). Checked by `PublishCheck` against the conversion and the previous package.
public struct LayerExpectation: Sendable, Hashable {
    /// The input's layer name.
    public var layer: String
    /// Where it is in the pipeline (`sources[2]`), for messages; nil outside pipelines.
    public var source: String?
    /// The fewest features the layer may have.
    public var minFeatures: Int?
    /// The largest share (0–1) of the previous package's features of this layer the new build may lose.
    public var maxShrink: Double?
    /// A layer with no features (after filters) is an error instead of a warning; a skipped (rejected) layer too.
    public var requireFeatures: Bool

    /// Creates an expectation.
    public init(
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
