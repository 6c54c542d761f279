import GeometryAlgorithms
import KartpackCore
import VectorTile

/// Gathers one query's features from its tiles: cuts pieces, joins them by (layer, id), ranks them and gives
/// each its spread level (`SpreadLevels`).
struct FeatureCollector {
    private struct Entry {
        var layer: String
        var id: UInt64?
        var properties: [(key: String, value: FeatureValue)]
        var type: MVTGeometryType
        var points: [GeoCoordinate] = []
        var lines: [[GeoCoordinate]] = []
        var polygons: [GeoPolygon] = []
        var rank: QueryRank
        var level = SpreadLevels.unplaced
    }

    let region: GeoRegion
    let mode: GeometryMode
    let layers: Set<String>?
    let priority: String?
    private var entries: [Entry] = []
    private var index: [String: [UInt64: Int]] = [:]

    init(region: GeoRegion, mode: GeometryMode, layers: Set<String>?, priority: String?) {
        self.region = region
        self.mode = mode
        self.layers = layers
        self.priority = priority
    }

    /// Features kept so far.
    var count: Int { entries.count }

    mutating func add(_ tile: DecodedTile, z: Int, x: Int, y: Int) {
        var candidates: [SpreadLevels.Candidate] = []
        for layer in tile.layers where layers?.contains(layer.name) ?? true {
            guard layer.extent > 0 else { continue }
            let projection = TileProjection(z: z, x: x, y: y, extent: layer.extent)
            let cutter = PieceCutter(projection: projection, region: region, mode: mode)
            let layerHash = QueryRank.hash(layer.name)
            for (i, feature) in layer.features.enumerated() {
                guard let anchor = cutter.anchor(feature) else { continue }
                let rank = QueryRank(
                    priority: priority.flatMap { feature.properties[$0]?.numericValue },
                    hash: QueryRank.mix(layerHash ^ (feature.id ?? QueryRank.pieceKey(z, x, y, i))),
                    layer: layer.name, id: feature.id ?? 0)
                let slot: Int?
                if let piece = cutter.cut(feature) {
                    slot = merge(piece, feature: feature, layer: layer.name, rank: rank)
                } else {
                    slot = nil
                }
                let e = Double(layer.extent)
                candidates.append(.init(slot: slot, rank: rank, anchor: (anchor.x / e, anchor.y / e)))
            }
        }
        for (slot, level) in SpreadLevels.levels(candidates) where level < entries[slot].level {
            entries[slot].level = level
        }
    }

    private mutating func merge(_ piece: PieceCutter.Piece, feature: DecodedFeature, layer: String, rank: QueryRank)
        -> Int
    {
        if let id = feature.id, let slot = index[layer]?[id] {
            if entries[slot].type == feature.type {
                entries[slot].points += piece.points
                entries[slot].lines += piece.lines
                entries[slot].polygons += piece.polygons
            }
            return slot
        }
        var properties: [(key: String, value: FeatureValue)] = []
        for (key, value) in feature.properties.entries {
            switch value {
            case .string(let s): properties.append((key, .string(s)))
            case .int(let v): properties.append((key, .int(v)))
            case .uint(let v): properties.append((key, .uint(v)))
            case .double(let v): properties.append((key, .double(v)))
            case .bool(let v): properties.append((key, .bool(v)))
            case .null: break
            }
        }
        let entry = Entry(
            layer: layer, id: feature.id, properties: properties, type: feature.type, points: piece.points,
            lines: piece.lines, polygons: piece.polygons, rank: rank)
        entries.append(entry)
        if let id = feature.id { index[layer, default: [:]][id] = entries.count - 1 }
        return entries.count - 1
    }

    func result(limit: Int?, spread: Spread) -> [MapFeature] {
        var order = Array(entries.indices)
        if let limit {
            order.sort { a, b in
                let ea = entries[a]
                let eb = entries[b]
                if spread == .even, ea.level != eb.level { return ea.level < eb.level }
                return ea.rank < eb.rank
            }
            order = Array(order.prefix(limit))
        }
        return order.map { i in
            let e = entries[i]
            let geometry: FeatureGeometry =
                switch e.type {
                case .point: .points(e.points)
                case .lineString: .lines(e.lines)
                case .polygon, .unknown: .polygons(e.polygons)
                }
            return MapFeature(layer: e.layer, id: e.id, properties: e.properties, geometry: geometry)
        }
    }
}
