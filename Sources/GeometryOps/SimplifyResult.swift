/// Which fallback `GeometryEngine.simplify` needed to return a valid result.
public enum SimplifyFallback: String, Sendable, Hashable {
    /// The first result was valid (or the geometry is not polygonal and needs no check).
    case none
    /// The result at the requested tolerance was invalid; the one at a tenth of it was valid.
    case reducedTolerance
    /// Both results were invalid; the tenth-tolerance result was repaired with MakeValid STRUCTURE.
    case madeValid
}

/// The outcome of `GeometryEngine.simplify`.
public struct SimplifyResult {
    /// The simplified geometry, nil when it collapsed to nothing.
    public let geometry: EngineGeometry?
    /// The fallback used; anything but `.none` should be counted as `simplify_fallback`.
    public let fallback: SimplifyFallback
}
