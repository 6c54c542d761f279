import VectorTile

/// One feature's geometry in one tile, in tile units (`PieceGeometry`).
package struct TilePiece: Sendable {
    package var tile: TileCoordinate
    package var geometry: PieceGeometry

    package init(tile: TileCoordinate, geometry: PieceGeometry) {
        self.tile = tile
        self.geometry = geometry
    }

    /// The MVT geometry type (`unknown` for small-feature dust).
    package var type: MVTGeometryType { geometry.type }
}

/// The zoom levels and grid a conversion tiles to.
package struct TilingParameters: Sendable {
    package var minZoom: Int
    package var maxZoom: Int
    package var extent: Int
    /// Clip buffer in tile units.
    package var buffer: Double
    /// Simplification tolerance in tile units.
    package var simplify: Double
    /// Polygons are left unsimplified here and simplified per tile and layer by `EncodePhase` (shared borders).
    package var sharedBorders = false
    /// Pieces smaller than `smallFeatureSize` (a square of that side, a line of that length) below a feature's
    /// highest zoom are handed on as dust (`SmallFeatureDust`) for small-feature reduction.
    package var smallFeatures = false
    package var smallFeatureSize = 2.0
    /// A range shard's tiles (`ShardFootprint`): features that touch none are not tiled (nil: every feature).
    package var shardFootprint: ShardFootprint?

    /// The parameters of a conversion: the one place they are taken from its options (the feature phase and the
    /// region builds must tile alike).
    package init(options: ConvertOptions) {
        self.init(
            minZoom: options.minZoom, maxZoom: options.maxZoom, extent: options.extent, buffer: options.buffer,
            simplify: options.simplify, sharedBorders: options.sharedBorders)
        smallFeatures = options.smallFeatures
        smallFeatureSize = options.smallFeatureSize
        shardFootprint = ShardFootprint(options: options)
    }

    package init(minZoom: Int, maxZoom: Int, extent: Int, buffer: Double, simplify: Double, sharedBorders: Bool = false)
    {
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.extent = extent
        self.buffer = buffer
        self.simplify = simplify
        self.sharedBorders = sharedBorders
    }

    /// One tile unit in metres at zoom `z`.
    func unit(zoom z: Int) -> Double { SphericalMercator.tileSize(zoom: z) / Double(extent) }

    /// The tile's bounds grown by the buffer.
    func bufferedBounds(of tile: TileCoordinate) -> Bounds {
        SphericalMercator.bounds(of: tile).expanded(by: bufferMetres(zoom: tile.z))
    }

    /// The buffer in metres at zoom `z`.
    func bufferMetres(zoom z: Int) -> Double { buffer * unit(zoom: z) }
}

import KartpackCore
