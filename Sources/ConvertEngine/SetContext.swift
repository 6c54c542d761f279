import KartpackCore
import Styling

/// Polygons in Web Mercator metres, shared read-only with every worker (each builds its own GEOS index).
package struct SharedPolygons: Sendable {
    package var geometries: [Geometry]
    package var bounds: Bounds
}

/// What every worker needs to know about one input set. Immutable and shared across threads.
package final class SetContext: Sendable {
    /// Index of the input set (for diagnostics).
    package let index: Int
    /// The input set's name (what style selectors match).
    package let name: String
    package let crs: CRSInfo
    /// Zoom range of the layer.
    package let zooms: ClosedRange<Int>
    /// The stylesheet compiled for this layer, if any.
    package let matcher: LayerStyleMatcher?
    /// The client's view of the sheet for this layer, when some of its rules need per-feature match flags.
    package let clientCascade: ClientCascade?
    /// Polygons per ancestor selector (raw value of `AncestorSelectorID`), for descendant selectors.
    package let ancestors: [Int: SharedPolygons]
    /// The region to clip to, if any.
    package let clip: SharedPolygons?

    package init(
        index: Int, name: String, crs: CRSInfo, zooms: ClosedRange<Int>, matcher: LayerStyleMatcher?,
        clientCascade: ClientCascade?, ancestors: [Int: SharedPolygons], clip: SharedPolygons?
    ) {
        self.clientCascade = clientCascade
        self.index = index
        self.name = name
        self.crs = crs
        self.zooms = zooms
        self.matcher = matcher
        self.ancestors = ancestors
        self.clip = clip
    }
}

/// The style decisions for one feature.
package struct StyledFeature: Sendable {
    /// Output layer name chosen by the style (`layer:`), nil for the input's own name.
    package var layer: String?
    /// Attributes kept by the style (`keep:`), nil for all.
    package var keep: [String]?
    /// Zooms at which the feature is written.
    package var zooms: ClosedRange<Int>
    /// The class per zoom of `zooms` (index 0 = `zooms.lowerBound`).
    package var classes: [String?]
    /// The client match flags per zoom of `zooms` (`ClientCascade.flags`); empty when there are none.
    package var flags: [[String]] = []
    /// Whether the style labels the feature, per zoom of `zooms`; empty when it never does.
    var labelled: [Bool] = []
    /// The style's `max-points` for the feature's output layer.
    package var maxPoints: Int?
    /// The style's `coalesce` for the feature's output layer.
    package var coalesce = false
    /// The style's `thinning` (at the feature's highest zoom; nil: `auto`).
    package var thinning: ThinningPolicy?
    /// The style's `identity` attributes (at the feature's highest zoom).
    package var identity: [String]?
}
