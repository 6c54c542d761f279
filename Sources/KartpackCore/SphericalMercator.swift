import Foundation

/// Spherical ("Popular Visualisation Pseudo") Mercator, EPSG method 1024, as EPSG:3857 defines it: the one
/// implementation of the Web Mercator formulas, used by reprojection (after PROJ gives WGS 84) and by tiling.
public enum SphericalMercator {
    /// The WGS 84 semi-major axis used as the sphere radius, metres.
    public static let radius = 6_378_137.0
    /// Half the width (and height) of the square world: π · radius = 20037508.342789244 m.
    public static let halfWorld = Double.pi * radius
    /// The latitude where y reaches `halfWorld`: atan(sinh(π)) ≈ 85.0511287798°.
    public static let maxLatitude = atan(sinh(Double.pi)) * 180 / .pi

    /// Projects a longitude/latitude in degrees. The latitude is clamped to ±`maxLatitude` first (so y stays
    /// within ±`halfWorld`); the longitude is not wrapped, so 190° gives x beyond `halfWorld`.
    public static func project(lon: Double, lat: Double) -> (x: Double, y: Double) {
        let x = radius * lon * (.pi / 180)
        // At the limit, give exactly ±halfWorld (the formula lands 1e-8 m short through rounding).
        if lat >= maxLatitude { return (x, halfWorld) }
        if lat <= -maxLatitude { return (x, -halfWorld) }
        let y = radius * asinh(tan(lat * (.pi / 180)))
        return (x, min(max(y, -halfWorld), halfWorld))
    }

    /// Converts metres back to longitude/latitude in degrees.
    public static func unproject(x: Double, y: Double) -> (longitude: Double, latitude: Double) {
        let lon = x / radius * 180 / .pi
        let lat = (2 * atan(exp(y / radius)) - .pi / 2) * 180 / .pi
        return (lon, lat)
    }
}
