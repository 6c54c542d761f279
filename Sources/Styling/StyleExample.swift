import KartpackCore

/// An `@example LAYER { ATTR: value; …; zoom: N; expect-class: NAME; }` block: a feature the sheet must classify
/// as stated. `kartpack validate` runs them (`Stylesheet.runExamples()`).
///
/// - Attribute values: a number becomes `.int` when written without `.` or exponent (and fits), else `.double`;
///   a quoted string or a bare word becomes `.string`; `null` is `.null`; `true` / `false` are `.bool`.
/// - `zoom` defaults to 14.
/// - `expect-class: none` expects no class.
/// - `inside: L1, L2` says the feature lies inside features of those layers: every descendant-selector ancestor
///   naming one of them counts as containing it (its filters are taken as satisfied). Without `inside`, the feature
///   lies inside nothing.
public struct StyleExample: Sendable, Hashable {
    /// The expected outcome of an example.
    public enum Expectation: Sendable, Hashable, CustomStringConvertible {
        /// `expect-class: none`.
        case noClass
        /// `expect-class: NAME`.
        case className(String)

        /// `none` or the class name.
        public var description: String {
            switch self {
            case .noClass: "none"
            case .className(let c): c
            }
        }
    }

    /// The layer name as written.
    public var layer: String
    /// The feature's attributes, in the order written.
    public var properties: Properties
    /// The zoom to classify at.
    public var zoom: Int
    /// The expected class, or nil when the example states none (a warning).
    public var expectedClass: Expectation?
    /// Layers the feature lies inside.
    public var inside: [String]
    /// Where `@example` starts.
    public var location: StyleLocation

    /// Creates an example.
    public init(
        layer: String, properties: Properties, zoom: Int = 14, expectedClass: Expectation?, inside: [String] = [],
        location: StyleLocation
    ) {
        self.layer = layer
        self.properties = properties
        self.zoom = zoom
        self.expectedClass = expectedClass
        self.inside = inside
        self.location = location
    }
}
