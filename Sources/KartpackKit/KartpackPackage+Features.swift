import KartpackCore
import PMTiles
import VectorTile

extension KartpackPackage {
    /// The features of a region at a zoom, decoded to WGS 84, one per feature id, optionally at most `limit` of
    /// them spread evenly.
    ///
    /// Reads the tiles at `zoom` (or at the package's highest zoom above it) that cover the region, cut to the
    /// package bounds; a zoom below the package's lowest gives no features. A feature that several tiles hold is
    /// returned once, its parts from every tile joined (features without an id cannot be joined: each tile's
    /// piece is then its own feature). Each tile's piece is cut at the tile's edges, so tile buffers never
    /// double a point or an area.
    ///
    /// - Parameters:
    ///   - region: the box to query (WGS 84, west ≤ east).
    ///   - zoom: the map zoom, 0...31.
    ///   - layers: the layers to read; nil for all. A name the package does not list is an error.
    ///   - limit: at most this many features; nil for all.
    ///   - spread: how `limit` chooses (``Spread/even`` by default).
    ///   - priority: a numeric attribute: within a cell (``Spread/even``) or overall (``Spread/rank``) higher
    ///     values win; features without it come after those with it; ties are broken by a fixed hash of layer
    ///     and id, so the choice never depends on file order or the view.
    ///   - geometry: cut to the region (default) or the whole pieces of the covering tiles.
    /// - Returns: without `limit`, features in tile order (rows north to south, west to east; layers and features
    ///   in tile order); with `limit`, the chosen features best first.
    /// - Throws: ``KartpackKitError/invalidRequest(_:)`` (bad region, zoom, limit or layer, more tiles than
    ///   ``Limits/maxTilesPerQuery``), ``KartpackKitError/invalidPackage(path:reason:)`` and
    ///   ``KartpackKitError/invalidTile(path:tile:reason:)`` for damaged data.
    public func features(
        in region: GeoRegion, zoom: Int, layers: [String]? = nil, limit: Int? = nil, spread: Spread = .even,
        priority: String? = nil, geometry: GeometryMode = .clipped
    ) throws(KartpackKitError) -> [MapFeature] {
        guard region.isValid else { throw .invalidRequest("region \(region) is not a WGS 84 box with west ≤ east") }
        guard (0...TileCoordinate.maxZoom).contains(zoom) else {
            throw .invalidRequest("zoom \(zoom) is outside 0...\(TileCoordinate.maxZoom)")
        }
        if let limit, limit < 0 { throw .invalidRequest("limit \(limit) is negative") }
        if let layers, !self.layers.isEmpty {
            for name in layers where layer(named: name) == nil {
                let known = self.layers.map(\.name).joined(separator: ", ")
                throw .invalidRequest("the package has no layer \(name) (layers: \(known))")
            }
        }
        guard zoom >= minZoom, let area = clampedToPackage(region) else { return [] }
        let dataZoom = min(zoom, maxZoom)
        let range = tileRange(area, zoom: dataZoom)
        let count = (range.maxX - range.minX + 1) * (range.maxY - range.minY + 1)
        guard count <= limits.maxTilesPerQuery else {
            throw .invalidRequest(
                "region \(region) covers \(count) tiles at zoom \(dataZoom), more than \(limits.maxTilesPerQuery)")
        }
        var collector = FeatureCollector(
            region: region, mode: geometry, layers: layers.map { Set($0) }, priority: priority)
        let decoder = MVTDecoder()
        var decoded = 0
        for ty in range.minY...range.maxY {
            for tx in range.minX...range.maxX {
                guard let bytes = try tileData(z: dataZoom, x: tx, y: ty) else { continue }
                let tile: DecodedTile
                do throws(MVTDecodeError) {
                    tile = try decoder.decode(bytes)
                } catch {
                    throw .invalidTile(path: url.path, tile: "\(dataZoom)/\(tx)/\(ty)", reason: error.description)
                }
                // Counted as decoded, before pieces of one id are joined: tiles sharing one blob of millions of
                // same-id features keep a single feature but cost the work of all of them.
                decoded += tile.layers.reduce(0) { $0 + $1.features.count }
                guard decoded <= limits.maxFeaturesPerQuery else {
                    throw .invalidPackage(
                        path: url.path,
                        reason: "the tiles of region \(region) at zoom \(dataZoom) hold more than "
                            + "\(limits.maxFeaturesPerQuery) features, the limit of one query")
                }
                collector.add(tile, z: dataZoom, x: tx, y: ty)
            }
        }
        return collector.result(limit: limit, spread: spread)
    }

    /// The region cut to the package bounds (when the header has usable bounds), nil when they do not meet.
    private func clampedToPackage(_ r: GeoRegion) -> GeoRegion? {
        let b = bounds
        guard b.isValid, b.west < b.east, b.south < b.north else { return r }
        let out = GeoRegion(
            west: max(r.west, b.west), south: max(r.south, b.south), east: min(r.east, b.east),
            north: min(r.north, b.north))
        return out.west <= out.east && out.south <= out.north ? out : nil
    }

    private func tileRange(_ r: GeoRegion, zoom z: Int) -> (minX: Int, minY: Int, maxX: Int, maxY: Int) {
        let n = Double(1 << z)
        let nw = TileProjection.world(GeoCoordinate(longitude: r.west, latitude: r.north))
        let se = TileProjection.world(GeoCoordinate(longitude: r.east, latitude: r.south))
        func index(_ v: Double) -> Int { Int(min(max((v * n).rounded(.down), 0), n - 1)) }
        return (index(nw.x), index(nw.y), index(se.x), index(se.y))
    }
}
