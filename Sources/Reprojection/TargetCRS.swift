import Foundation
import KartpackCore

/// The CRS a `CoordinateTransformer` produces.
public enum TargetCRS: Sendable, Hashable, CaseIterable {
    /// EPSG:4326 in (longitude, latitude) order, degrees.
    case wgs84
    /// EPSG:3857, Web Mercator metres, latitude clamped to ±85.05112878° (y to ±`SphericalMercator.halfWorld`).
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
