/// How ``KartpackPackage/features(in:zoom:layers:limit:spread:priority:geometry:)`` picks features when a
/// `limit` is set.
public enum Spread: Sendable, Hashable {
    /// Evenly over the region: each feature gets a *level* from a fixed quadtree inside its tile (level 0: the
    /// best-ranked feature of the tile, level 1: of each quarter, … down to 1/256 of a tile); the query returns
    /// the first `limit` features ordered by (level, rank). Levels come from whole tiles, never from the view, so
    /// the choice is deterministic and stable: a feature chosen in a view stays chosen in any smaller view at
    /// the same zoom and limit that still holds it.
    case even
    /// By rank alone (priority, then a fixed hash of layer and id): the same stability, no spatial spread.
    case rank
}

/// Whether a query's geometries are cut at the region's edges.
public enum GeometryMode: Sendable, Hashable {
    /// Cut to the region (points outside it are left out; lines and polygons end at its edges).
    case clipped
    /// As the covering tiles hold them (each tile's piece cut at the tile's own edges, so nothing is doubled by
    /// tile buffers): features that reach into the region come with their parts in every tile the region covers.
    case whole
}
