import KartpackCore

/// Where a feature (or its label point) goes: its output layer and its index there.
struct LazyPlace {
    var layer: Int
    var feature: Int
}

/// A feature read back from last night's piece store with the blocks of the lazy zooms left in its record
/// (`PieceReuse.Outcome`): those blocks, the record, and its entry in the store's key table.
package struct ReadBack: Sendable {
    var parts: StoredParts
    var entry: Int
    var record: [UInt8]

    /// Whether a block left holds pieces (`label`: label pieces) at zoom `z`.
    func holds(zoom z: Int, label: Bool) -> Bool {
        parts.blocks.contains { $0.label == label && Int($0.zoom) == z }
    }

    /// Whether a block left holds label pieces (`label`) or pieces.
    func holds(label: Bool) -> Bool { parts.blocks.contains { $0.label == label } }

    /// The zooms of the blocks left (`label`: of label pieces).
    func zooms(label: Bool) -> [Int] { parts.blocks.filter { $0.label == label }.map { Int($0.zoom) } }

    /// The tiles of the pieces left at zoom `z` (`label`: label pieces), their geometry not decoded.
    func tiles(zoom z: Int, label: Bool) -> [TileCoordinate] {
        parts.blocks.filter { $0.label == label && Int($0.zoom) == z }.flatMap { Self.tiles(of: $0, in: record) }
    }

    /// The tiles of the pieces of `block` of `record` (walked when the record was read: it parses).
    static func tiles(of block: StoredParts.Block, in record: [UInt8]) -> [TileCoordinate] {
        var walk = PieceDecoder(bytes: record, zoom: Int(block.zoom), range: block.bytes)
        var out: [TileCoordinate] = []
        while let t = try? walk.nextTile() { out.append(t) }
        return out
    }
}

extension PieceReuse.Outcome {
    /// What of the record was left in the store, when the feature was read back.
    var readBack: ReadBack? {
        guard let left, let record else { return nil }
        return ReadBack(parts: left, entry: entry, record: record)
    }
}

extension TiledLayers {
    /// Adds a feature's pieces (`place`) and label pieces (`labels`) to the spool. A night (`lazy` set): a feature
    /// `unchanged` since last night (`isLazy`) leaves its pieces of the lazy zooms in the store (noted in `lazy`);
    /// any other feature's pieces there, those of its blocks left too, mark their tiles dirty.
    mutating func addPieces(
        _ tiling: TiledFeature.Tiling, place: LazyPlace, labels: LazyPlace?, readBack: ReadBack?, lazy isLazy: Bool
    ) {
        let noted = lazy == nil || isLazy
        func add(_ all: [TilePiece], _ at: LazyPlace) {
            for var p in all {
                (p.layer, p.feature) = (Int32(at.layer), Int32(at.feature))
                if !noted { lazy?.noteAdded(p.tile) }
                pieces.append(p)
            }
        }
        add(tiling.pieces, place)
        if let labels { add(tiling.labelPieces, labels) }
        guard let readBack, lazy != nil else { return }
        guard isLazy else {
            // Changed since last night: its pieces left in the record go to the spool after all.
            for block in readBack.parts.blocks {
                guard let at = block.label ? labels : place,
                    let decoded = PieceRecord.pieces(of: block, in: readBack.record)
                else { continue }
                add(decoded, at)
            }
            return
        }
        let (minX, minY, maxX, maxY) = LazyPieces.outward(tiling.bounds)
        let labelZooms = tiling.labelPieces.map(\.tile.z) + readBack.zooms(label: true)
        let feature = LazyPieces.Feature(
            minX: minX, minY: minY, maxX: maxX, maxY: maxY, entry: UInt32(readBack.entry),
            feature: Int32(place.feature), labelFeature: Int32(labels?.feature ?? -1), layer: UInt16(place.layer),
            labelLayer: UInt16(labels?.layer ?? 0), low: UInt8(tiling.zooms.lowerBound),
            high: UInt8(tiling.zooms.upperBound), labelTop: Int8(labelZooms.max() ?? -1),
            decoded: readBack.parts.blocks.isEmpty)
        lazy?.checkBounds(tiling.pieces + tiling.labelPieces, of: feature)
        let order = lazy?.order ?? 0
        lazy?.add(
            feature, summary: StoredParts.summary(readBack.parts.summaries, order: order),
            labelSummary: StoredParts.summary(readBack.parts.labelSummaries, order: order))
    }
}
