import Foundation
public import KartpackCore

/// Spherical Web Mercator (EPSG:3857) math: tile bounds in metres and lon/lat conversion.
///
/// This is pure math for tiling, `inspect --wgs84` and tests; reprojection of source data goes through PROJ.
public enum WebMercator {
    /// Earth radius of the Web Mercator sphere, in metres.
    public static let radius = SphericalMercator.radius
    /// Half the width of the projected world, in metres (`π · radius`).
    public static let halfWorld = SphericalMercator.halfWorld
    /// The latitude whose projection is `y = halfWorld`, in degrees.
    public static let maxLatitude = SphericalMercator.maxLatitude

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

    /// Projects longitude/latitude (degrees, WGS 84 treated as a sphere) to metres. Latitude is clamped to
    /// ±`maxLatitude` and longitude to ±180 first.
    public static func project(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        SphericalMercator.project(lon: min(max(longitude, -180), 180), lat: latitude)
    }

    /// Converts metres back to longitude/latitude in degrees.
    public static func unproject(x: Double, y: Double) -> (longitude: Double, latitude: Double) {
        SphericalMercator.unproject(x: x, y: y)
    }
}
