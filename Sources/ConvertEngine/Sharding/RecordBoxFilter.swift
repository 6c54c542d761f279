import KartpackCore
import Reprojection
import Shapefile

/// Which records a shard reads at all: a Shapefile record whose stored box (in the file's CRS), projected to Web
/// Mercator, cannot reach the shard's work is left unread — not decoded, projected or repaired — and counted as
/// `outsideShard` (`ShapefileReader.keepsRecordBox`). A convert range shard's work is its tiles
/// (`ShardFootprint.touches`, which adds the tile buffer), a package shard's its regions' clip polygons.
///
/// The box is projected with its edges densified (`transformBounds`) and grown by a thousandth of its size and a
/// metre more (an edge may bulge past the points sampled): the test may read a record without need, never leave
/// one that has a piece in the shard. A box it cannot project, and one with longitudes past ±180° (wrapped by
/// `ReprojectStage`), is read; so is every record of a layer whose CRS cannot be projected here.
package struct RecordBoxFilter: Sendable {
    /// Whether a feature with this projected extent (Web Mercator metres) may matter to the shard.
    package var touches: @Sendable (Bounds) -> Bool

    package init(touches: @escaping @Sendable (Bounds) -> Bool) {
        self.touches = touches
    }

    /// The reader's test for records in `crs`.
    func test(crs: CRSInfo) -> ((Bounds) -> Bool)? {
        guard let transformer = try? CoordinateTransformer(from: crs, to: .webMercator) else { return nil }
        let touches = touches
        let geographic = crs.isGeographic
        return { box in
            if geographic, box.minX < -180 || box.maxX > 180 { return true }
            guard let projected = transformer.transformBounds(box) else { return true }
            let margin = 1 + 1e-3 * max(projected.maxX - projected.minX, projected.maxY - projected.minY)
            return touches(projected.expanded(by: margin))
        }
    }

    /// Gives `reader` the test when a skipped record cannot change the shard's output: a Shapefile whose feature
    /// ids are record numbers (an id field's duplicate policy looks at every record in file order).
    func install(on reader: any LayerReading, crs: CRSInfo, ids: FeatureIDScheme) {
        guard ids.kind == .recordNumber, let shapefile = reader as? ShapefileReader else { return }
        shapefile.keepsRecordBox = test(crs: crs)
    }
}

extension ShardFootprint {
    /// The range shard's record filter: records that cannot reach its tiles.
    package var recordBoxFilter: RecordBoxFilter {
        let footprint = self
        return RecordBoxFilter { footprint.touches($0) }
    }
}
