import KartpackCore

/// The `clip` section: features are cut to an area (plus a buffer) before tiling.
package struct ClipSpec: Sendable, Hashable {
    /// The clip area: the polygons of a Shapefile, or a longitude/latitude box.
    package enum Area: Sendable, Hashable {
        /// Polygons of the Shapefile at `path` (absolute), optionally only those matching `filter` (stylesheet
        /// selector syntax, kept as text).
        case file(path: String, filter: String?)
        /// A WGS84 box: `minX`/`maxX` are longitudes, `minY`/`maxY` latitudes.
        case bbox(Bounds)
    }

    /// What to clip to.
    package var area: Area
    /// Buffer around the area in metres (default 0).
    package var buffer: Double

    /// Creates a clip.
    package init(area: Area, buffer: Double = 0) {
        self.area = area
        self.buffer = buffer
    }

    /// Keys accepted in the section.
    package static let keys = ["path", "filter", "bbox", "buffer"]
}
