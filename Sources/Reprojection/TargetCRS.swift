import Foundation

/// The CRS a `CoordinateTransformer` produces.
public enum TargetCRS: Sendable, Hashable, CaseIterable {
    /// EPSG:4326 in (longitude, latitude) order, degrees.
    case wgs84
    /// EPSG:3857, Web Mercator metres, latitude clamped to ±85.05112878° (y to ±`WebMercatorMath.halfWorld`).
    case webMercator

    /// The EPSG code: 4326 or 3857.
    public var epsg: Int {
        switch self {
        case .wgs84: 4326
        case .webMercator: 3857
        }
    }

    /// `EPSG:4326` or `EPSG:3857`.
    public var label: String { "EPSG:\(epsg)" }

    /// PROJ's name for the CRS: "WGS 84" or "WGS 84 / Pseudo-Mercator".
    public var name: String {
        switch self {
        case .wgs84: "WGS 84"
        case .webMercator: "WGS 84 / Pseudo-Mercator"
        }
    }
}

/// Spherical ("Popular Visualisation Pseudo") Mercator, EPSG method 1024, as EPSG:3857 defines it.
public enum WebMercatorMath {
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
}
