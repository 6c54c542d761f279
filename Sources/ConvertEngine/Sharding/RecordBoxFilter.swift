import KartpackCore
import Reprojection
import Shapefile

/// Which records a shard reads at all: a Shapefile record whose stored box (in the file's CRS), projected to Web
/// Mercator, cannot reach the shard's work is left unread — not decoded, projected or repaired — and counted as
/// `outsideShard` (`ShapefileReader.keepsRecordBox`). A convert range shard's work is its tiles
/// (`ShardFootprint.touches`, which adds the tile buffer), a package shard's its regions' clip polygons.
///
/// The box is projected from points along its edges and grown by a margin (an edge may bulge past the points
/// sampled; `project`): the test may read a record without need, never leave one that has a piece in the shard.
/// A box it cannot project, and one with longitudes past ±180° (wrapped by `ReprojectStage`), is read; so is
/// every record of a layer whose CRS cannot be projected here.
package struct RecordBoxFilter: Sendable {
    /// Whether a feature with this projected extent (Web Mercator metres) may matter to the shard.
    package var touches: @Sendable (Bounds) -> Bool
    /// Files (absolute `.shp` paths) read whole: the plan found their stored boxes untrustworthy
    /// (`UntrustedRecordBoxes`).
    package var readWhole: Set<String> = []

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
            guard let projected = Self.project(box, transformer) else { return true }
            return touches(projected)
        }
    }

    /// Boxes smaller than this once projected (metres) are projected from 8 points.
    static let smallBox = 50_000.0

    /// `box` projected to Web Mercator, grown so that the projected record cannot leave it: a small box from its
    /// corners and edge midpoints, grown by a hundredth of its size and a metre (an edge of 25 km bulges by
    /// centimetres between them in the projections in use); a larger one, or one with a point that cannot be
    /// projected, by `transformBounds` (21 points an edge), grown by a thousandth and a metre. Nil when that fails.
    static func project(_ box: Bounds, _ transformer: CoordinateTransformer) -> Bounds? {
        let mx = (box.minX + box.maxX) / 2
        let my = (box.minY + box.maxY) / 2
        var xy = [
            box.minX, box.minY, mx, box.minY, box.maxX, box.minY, box.maxX, my,
            box.maxX, box.maxY, mx, box.maxY, box.minX, box.maxY, box.minX, my,
        ]
        if transformer.transform(&xy) == 0 {
            var p = Bounds.empty
            for i in stride(from: 0, to: xy.count, by: 2) { p.include(x: xy[i], y: xy[i + 1]) }
            let size = max(p.maxX - p.minX, p.maxY - p.minY)
            if size < smallBox { return p.expanded(by: 1 + 0.01 * size) }
        }
        guard let p = transformer.transformBounds(box) else { return nil }
        return p.expanded(by: 1 + 1e-3 * max(p.maxX - p.minX, p.maxY - p.minY))
    }

    /// Gives `reader` (of the file at `path`) the test when a skipped record cannot change the shard's output: a
    /// Shapefile whose feature ids are record numbers (an id field's duplicate policy looks at every record in file
    /// order) and whose boxes the plan trusts (not in `readWhole`).
    func install(on reader: any LayerReading, path: String, crs: CRSInfo, ids: FeatureIDScheme) {
        guard ids.kind == .recordNumber, let shapefile = reader as? ShapefileReader,
            !readWhole.contains(UntrustedRecordBoxes.absolute(path))
        else { return }
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
