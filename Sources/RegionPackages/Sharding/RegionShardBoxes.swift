import ConvertEngine
import KartpackCore

extension RegionPackager {
    /// A package shard's record filter (`RecordBoxFilter`): a record whose projected box touches the box of none of
    /// the shard's region clips (`clips`: the shard's regions only, buffer included) would be routed to none of
    /// them (`RegionRouting` narrows by the same boxes first), so the shard leaves it unread. A region's fingerprint
    /// and package depend on the features routed to it alone, so they do not change. Nil — every record read — for
    /// a whole night and for the merge, which fingerprints every region.
    static func shardRecordBoxes(_ options: RegionPackageOptions, clips: [SharedPolygons]) -> RecordBoxFilter? {
        guard options.onlyRegions != nil, options.parts == nil else { return nil }
        let index = RegionIndex(clips.map(\.bounds))
        let h = SphericalMercator.halfWorld
        var filter = RecordBoxFilter { b in
            // An extent past the world's edge has antimeridian copies on the other side: read it.
            guard !b.isEmpty, b.minX > -h, b.maxX < h else { return true }
            return !index.regions(touching: b).isEmpty
        }
        filter.readWhole = options.readWhole
        return filter
    }
}
