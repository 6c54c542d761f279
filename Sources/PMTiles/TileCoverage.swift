#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import KartpackCore

/// Tracks which zooms and which tile ranges were written, to derive zooms and bounds.
package struct TileCoverage {
    private(set) var minZoom = Int.max
    private(set) var maxZoom = Int.min
    private var minX = [Int](repeating: Int.max, count: TileCoordinate.maxZoom + 1)
    private var minY = [Int](repeating: Int.max, count: TileCoordinate.maxZoom + 1)
    private var maxX = [Int](repeating: Int.min, count: TileCoordinate.maxZoom + 1)
    private var maxY = [Int](repeating: Int.min, count: TileCoordinate.maxZoom + 1)

    /// An empty coverage.
    package init() {}

    /// True before the first tile.
    package var isEmpty: Bool { minZoom > maxZoom }

    /// The zoom range written (only meaningful when not empty).
    package var zooms: ClosedRange<Int> { isEmpty ? 0...0 : minZoom...maxZoom }

    /// Records a valid tile.
    package mutating func include(_ key: TileCoordinate) {
        minZoom = Swift.min(minZoom, key.z)
        maxZoom = Swift.max(maxZoom, key.z)
        minX[key.z] = Swift.min(minX[key.z], key.x)
        minY[key.z] = Swift.min(minY[key.z], key.y)
        maxX[key.z] = Swift.max(maxX[key.z], key.x)
        maxY[key.z] = Swift.max(maxY[key.z], key.y)
    }

    /// The extent of the tiles at the highest zoom, in degrees (Web Mercator latitude limits), rounded to 1e-7.
    package var geoBounds: GeoBounds {
        guard !isEmpty else { return GeoBounds(west: -180, south: -85.0511287, east: 180, north: 85.0511287) }
        let z = maxZoom
        let n = Double(1 << z)
        func lon(_ x: Int) -> Double { Double(x) / n * 360 - 180 }
        func lat(_ y: Int) -> Double { atan(sinh(Double.pi * (1 - 2 * Double(y) / n))) * 180 / Double.pi }
        return GeoBounds(
            west: TileCoverage.rounded7(lon(minX[z])), south: TileCoverage.rounded7(lat(maxY[z] + 1)),
            east: TileCoverage.rounded7(lon(maxX[z] + 1)), north: TileCoverage.rounded7(lat(minY[z])))
    }

    /// Rounds degrees to 7 decimals (the PMTiles header precision), so text output stays short and stable.
    package static func rounded7(_ v: Double) -> Double {
        (v * 1e7).rounded(.toNearestOrAwayFromZero) / 1e7
    }
}
