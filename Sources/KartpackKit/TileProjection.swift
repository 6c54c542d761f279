import Foundation

/// Web Mercator maths between WGS 84 and the tile units of one tile (x right, y down, `0...extent`).
struct TileProjection {
    let z: Int
    let x: Int
    let y: Int
    let extent: Double
    private let worldTiles: Double

    init(z: Int, x: Int, y: Int, extent: Int) {
        self.z = z
        self.x = x
        self.y = y
        self.extent = Double(extent)
        worldTiles = Double(1 << z)
    }

    /// The world fraction (0...1, y down) of a longitude/latitude, latitudes clamped to the Mercator square.
    static func world(_ c: GeoCoordinate) -> (x: Double, y: Double) {
        let lat = min(max(c.latitude, -85.0511287798066), 85.0511287798066) * .pi / 180
        let wx = (c.longitude + 180) / 360
        let wy = (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2
        return (wx, wy)
    }

    /// Tile units of a position.
    func tileUnits(_ c: GeoCoordinate) -> (x: Double, y: Double) {
        let w = Self.world(c)
        return ((w.x * worldTiles - Double(x)) * extent, (w.y * worldTiles - Double(y)) * extent)
    }

    /// The position of a point in tile units.
    func coordinate(x tx: Double, y ty: Double) -> GeoCoordinate {
        let wx = (Double(x) + tx / extent) / worldTiles
        let wy = (Double(y) + ty / extent) / worldTiles
        let lat = atan(sinh(.pi * (1 - 2 * wy))) * 180 / .pi
        return GeoCoordinate(longitude: wx * 360 - 180, latitude: lat)
    }
}
