import VectorTile

/// A piece: what one feature has in one tile — the one meaning of "piece" on the convert path. `TileStage` cuts a
/// feature into pieces (simplified, quantized, in tile units: `PieceGeometry`); the feature phase gives each its
/// output layer and feature; `OrderPhase` its tile's sort key, then sorts (or spills and merges) them into the
/// archive's order: tile key, layer, feature; the encode passes simplify shared borders, reduce small features,
/// thin and coalesce them, and `TileEncodePass` writes each as an MVT feature. (Before a tile, a feature is cut on
/// the way down the pyramid as a `TileStage.Cut`, in metres; KartpackKit's `PieceCutter` is the client's own.)
package struct TilePiece: Sendable {
    /// The tile's sort key in the writer's tile order (set by `OrderPhase`; 0 before).
    package var key: UInt64 = 0
    /// The output layer (index into the conversion's layers); set by the feature phase.
    package var layer: Int32 = 0
    /// The feature (index into its layer's records); set by the feature phase.
    package var feature: Int32 = 0
    // The tile, packed (column and row fit 32 bits up to `TileCoordinate.maxZoom`), with `needsRepair` in the bytes
    // before `geometry`: a piece takes 48 bytes, not 64 (millions of them are held and spilled; `tile`).
    private var column: UInt32
    private var row: UInt32
    private var zoom: UInt8
    /// A polygon piece that rounding to the grid broke and whose repair waits for the shared-border pass: its rings
    /// may cross (`PieceGeometry.init(unrepaired:)`), and `SharedBorderPass` repairs what it simplified of them
    /// (LateGridRepair.swift). Set by `TileStage` with shared borders only; kept by the spill and the piece store.
    package var needsRepair = false
    package var geometry: PieceGeometry

    /// The tile the piece is in.
    package var tile: TileCoordinate {
        get { TileCoordinate(z: Int(zoom), x: Int(column), y: Int(row)) }
        set {
            zoom = UInt8(newValue.z)
            column = UInt32(newValue.x)
            row = UInt32(newValue.y)
        }
    }

    package init(
        key: UInt64 = 0, layer: Int32 = 0, feature: Int32 = 0, tile: TileCoordinate, geometry: PieceGeometry,
        needsRepair: Bool = false
    ) {
        self.key = key
        self.layer = layer
        self.feature = feature
        zoom = UInt8(tile.z)
        column = UInt32(tile.x)
        row = UInt32(tile.y)
        self.geometry = geometry
        self.needsRepair = needsRepair
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
    /// A range shard's lowest encoded zoom (`ShardZooms.firstPieceZoom`): below it, and below a feature's highest
    /// zoom, no piece is made (the cut still goes down through those zooms). Nil: pieces at every zoom.
    package var firstPieceZoom: Int?
    /// The metadata shard's zooms it encodes no tile of (`ShardZooms.metadataSkippedZooms`): there, below a
    /// feature's highest zoom, no piece is made (the range shards' notes give the merge what it counts there).
    package var skippedZooms: Set<Int>?

    /// The parameters of a conversion: the one place they are taken from its options (the feature phase and the
    /// region builds must tile alike).
    package init(options: ConvertOptions) {
        self.init(
            minZoom: options.minZoom, maxZoom: options.maxZoom, extent: options.extent, buffer: options.buffer,
            simplify: options.simplify, sharedBorders: options.sharedBorders)
        smallFeatures = options.smallFeatures
        smallFeatureSize = options.smallFeatureSize
        shardFootprint = ShardFootprint(options: options)
        firstPieceZoom = ShardZooms.firstPieceZoom(options: options)
        skippedZooms = ShardFeatureNotes(options: options).flatMap { $0.holdsMetadata ? Set($0.skippedZooms) : nil }
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

    /// Whether a feature whose highest zoom is `top` gets pieces at zoom `z` (`firstPieceZoom`, `skippedZooms`).
    func makesPieces(zoom z: Int, top: Int) -> Bool {
        z >= top || (z >= (firstPieceZoom ?? z) && !(skippedZooms?.contains(z) ?? false))
    }

    /// The buffer in metres at zoom `z`.
    func bufferMetres(zoom z: Int) -> Double { buffer * unit(zoom: z) }
}

import KartpackCore
