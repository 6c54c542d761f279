/// The XYZ tile grid over the spherical Mercator square: tile sizes, bounds and coverage in metres.
extension SphericalMercator {
    /// Width of one tile at zoom `z`, in metres.
    public static func tileSize(zoom z: Int) -> Double {
        2 * halfWorld / Double(1 << max(0, min(z, TileCoordinate.maxZoom)))
    }

    /// The tile's extent in metres (`minY` south, `maxY` north).
    public static func bounds(of tile: TileCoordinate) -> Bounds {
        let s = tileSize(zoom: tile.z)
        let minX = -halfWorld + Double(tile.x) * s
        let maxY = halfWorld - Double(tile.y) * s
        return Bounds(minX: minX, minY: maxY - s, maxX: minX + s, maxY: maxY)
    }

    /// The tiles at zoom `z` that cover `bounds` (metres), clamped to the grid; nil when `bounds` is empty,
    /// not finite or wholly outside the world.
    ///
    /// Each tile owns its west and north edges (half-open): a box whose east or south edge lies exactly on a
    /// tile edge also selects the tile beyond it, one whose west or north edge does not select the tile before
    /// it. Callers that buffer tiles expand `bounds` first.
    public static func tileRange(covering bounds: Bounds, zoom z: Int) -> TileRange? {
        guard z >= 0, z <= TileCoordinate.maxZoom, !bounds.isEmpty,
            bounds.minX.isFinite, bounds.minY.isFinite, bounds.maxX.isFinite, bounds.maxY.isFinite
        else { return nil }
        guard bounds.maxX >= -halfWorld, bounds.minX <= halfWorld, bounds.maxY >= -halfWorld,
            bounds.minY <= halfWorld
        else { return nil }
        let n = 1 << z
        let s = tileSize(zoom: z)
        func column(_ v: Double) -> Int { clampIndex(((v + halfWorld) / s).rounded(.down), n) }
        func row(_ v: Double) -> Int { clampIndex(((halfWorld - v) / s).rounded(.down), n) }
        return TileRange(
            z: z, minX: column(bounds.minX), minY: row(bounds.maxY), maxX: column(bounds.maxX), maxY: row(bounds.minY))
    }

    private static func clampIndex(_ v: Double, _ n: Int) -> Int {
        if v <= 0 { return 0 }
        if v >= Double(n - 1) { return n - 1 }
        return Int(v)
    }

    /// Projects a longitude/latitude box (degrees) to metres, longitudes clamped to ±180 and latitudes to
    /// ±`maxLatitude` first.
    public static func project(box b: Bounds) -> Bounds {
        let sw = project(lon: min(max(b.minX, -180), 180), lat: b.minY)
        let ne = project(lon: min(max(b.maxX, -180), 180), lat: b.maxY)
        return Bounds(minX: sw.x, minY: sw.y, maxX: ne.x, maxY: ne.y)
    }
}
