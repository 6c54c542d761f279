/// A decoded and validated MVT tile.
public struct DecodedTile: Sendable, Hashable {
    /// The layers in file order.
    public var layers: [DecodedLayer]
    /// Tolerated deviations (SHOULD-level rules, version 1 layers), the first `MVTDecoder.Limits.maxWarnings`.
    public var warnings: [MVTDecodeWarning]
    /// The number of warnings, including those not kept.
    public var warningCount: Int

    /// Creates a decoded tile.
    public init(layers: [DecodedLayer], warnings: [MVTDecodeWarning] = [], warningCount: Int = 0) {
        self.layers = layers
        self.warnings = warnings
        self.warningCount = warningCount
    }

    /// The layer with this exact name.
    public func layer(named name: String) -> DecodedLayer? {
        let bytes = Array(name.utf8)
        return layers.first { Array($0.name.utf8) == bytes }
    }
}
