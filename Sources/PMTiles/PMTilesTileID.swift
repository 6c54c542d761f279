import KartpackCore

/// PMTiles v3 TileIDs: the tiles of all lower zooms, plus the Hilbert distance of (x, y) on the zoom's grid.
public enum PMTilesTileID {
    /// `(4^z - 1) / 3`: how many tiles all zoom levels below `z` hold.
    static func base(_ z: Int) -> UInt64 {
        // 4^32 does not fit in 64 bits, but (4^32 - 1) / 3 is exactly UInt64.max / 3.
        z >= 32 ? UInt64.max / 3 : ((1 as UInt64) << (2 * UInt64(z)) - 1) / 3
    }

    /// The TileID of `z/x/y`, or nil when the tile is outside the grid (see `TileCoordinate.isValid`).
    public static func id(z: Int, x: Int, y: Int) -> UInt64? {
        id(TileCoordinate(z: z, x: x, y: y))
    }

    /// The TileID of `key`, or nil when the tile is outside the grid.
    public static func id(_ key: TileCoordinate) -> UInt64? {
        guard key.isValid else { return nil }
        var x = UInt64(key.x)
        var y = UInt64(key.y)
        var d: UInt64 = 0
        var s: UInt64 = key.z == 0 ? 0 : (1 as UInt64) << UInt64(key.z - 1)
        while s > 0 {
            let rx: UInt64 = (x & s) != 0 ? 1 : 0
            let ry: UInt64 = (y & s) != 0 ? 1 : 0
            d += s * s * ((3 * rx) ^ ry)
            // Mask before reflecting so that the unsigned arithmetic never goes below zero.
            x &= s - 1
            y &= s - 1
            if ry == 0 {
                if rx == 1 {
                    x = s - 1 - x
                    y = s - 1 - y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return base(key.z) + d
    }

    /// The tile a TileID names, or nil for an id beyond zoom 31.
    public static func coordinate(_ id: UInt64) -> TileCoordinate? {
        var z = 0
        while z <= TileCoordinate.maxZoom && base(z + 1) <= id { z += 1 }
        guard z <= TileCoordinate.maxZoom else { return nil }
        var t = id - base(z)
        let n: UInt64 = (1 as UInt64) << UInt64(z)
        var x: UInt64 = 0
        var y: UInt64 = 0
        var s: UInt64 = 1
        while s < n {
            let rx = 1 & (t / 2)
            let ry = 1 & (t ^ rx)
            if ry == 0 {
                if rx == 1 {
                    x = s - 1 - x
                    y = s - 1 - y
                }
                swap(&x, &y)
            }
            x += s * rx
            y += s * ry
            t /= 4
            s <<= 1
        }
        return TileCoordinate(z: z, x: Int(x), y: Int(y))
    }
}
