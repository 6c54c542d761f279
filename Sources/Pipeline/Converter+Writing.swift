import Foundation
import KartpackCore
import KartpackJSON
import TileArchive
import VectorTile

extension Converter {
    /// Writes every tile in archive order and publishes the package atomically (the writer's temp file is removed
    /// on any failure, and a previous package at the target stays untouched).
    func write(tiles: [Int: [EncodedTile]], zooms: ClosedRange<Int>, state: State, stats: [Int: ZoomStats]) throws -> ArchiveSummary {
        let writer: any TileArchiveWriting
        switch options.format {
        case .pmtiles:
            writer = try PMTilesWriter(path: options.output, overwrite: options.force, temporaryDirectory: options.temporaryDirectory)
        case .mbtiles:
            writer = try MBTilesWriter(path: options.output, overwrite: options.force)
        }
        do {
            let total = tiles.values.reduce(0) { $0 + $1.count }
            var done = 0
            for z in zooms {
                for t in tiles[z] ?? [] {
                    try writer.write(z: t.tile.z, x: t.tile.x, y: t.tile.y, data: t.bytes)
                    done += 1
                    if done % 256 == 0 {
                        try checkCancelled()
                        progress?.update("writing tiles", done: done, total: total)
                    }
                }
            }
            progress?.finish()
            try checkCancelled()
            return try writer.finish(metadata: metadata(state: state, stats: stats))
        } catch {
            writer.abort()
            throw error
        }
    }

    /// Package metadata: TileJSON keys, `vector_layers` with typed fields, and a deterministic summary of the run
    /// (counts only: no times, hosts or absolute paths).
    func metadata(state: State, stats: [Int: ZoomStats]) -> ArchiveMetadata {
        let base = ((options.output as NSString).lastPathComponent as NSString).deletingPathExtension
        var bounds: GeoBounds?
        var center: GeoCenter?
        let d = state.dataBounds
        if !d.isEmpty {
            let sw = SphericalMercator.unproject(x: d.minX, y: d.minY)
            let ne = SphericalMercator.unproject(x: d.maxX, y: d.maxY)
            bounds = GeoBounds(
                west: max(-180, sw.longitude), south: max(-SphericalMercator.maxLatitude, sw.latitude),
                east: min(180, ne.longitude), north: min(SphericalMercator.maxLatitude, ne.latitude))
            let c = SphericalMercator.unproject(x: (d.minX + d.maxX) / 2, y: (d.minY + d.maxY) / 2)
            center = GeoCenter(longitude: c.longitude, latitude: c.latitude, zoom: options.maxZoom)
        }
        let outputs = state.outputs.filter { !$0.records.isEmpty }
        let vectorLayers = outputs.map { l in
            var fields = l.fields.map { VectorLayerField(name: $0.name, type: VectorFieldType($0.type)) }
            if l.hasClass && !fields.contains(where: { $0.name == "class" }) {
                fields.append(VectorLayerField(name: "class", type: .string))
            }
            return VectorLayerInfo(id: l.name, fields: fields, minZoom: options.minZoom, maxZoom: options.maxZoom)
        }
        var inputs: [(key: String, value: JSONValue)] = []
        for l in state.inputs {
            let r = l.report
            inputs.append((l.name, .object([
                ("records", .int(Int64(r.records))),
                ("written", .int(Int64(r.written))),
                ("rejected", Self.counts(r.rejected)),
                ("repaired", Self.counts(r.repaired)),
            ])))
        }
        var layers: [(key: String, value: JSONValue)] = []
        for l in outputs {
            layers.append((l.name, .object([
                ("features", .int(Int64(l.records.count))),
                ("geometry", .string(l.family?.rawValue ?? "unknown")),
                ("classes", Self.counts(l.classes)),
                ("classes_by_zoom", .object(l.classesByZoom.keys.sorted().map { z in
                    (String(z), Self.counts(l.classesByZoom[z] ?? [:]))
                })),
            ])))
        }
        var dropped: [(key: String, value: JSONValue)] = []
        for z in stats.keys.sorted() {
            guard let s = stats[z], !s.dropped.isEmpty else { continue }
            dropped.append((String(z), Self.counts(s.dropped)))
        }
        // A JSON string, not an object: TileJSON readers (tippecanoe-decode) expect string metadata values.
        let runSummary = (try? JSONValue.object([
            ("inputs", .object(inputs)), ("layers", .object(layers)), ("dropped_by_zoom", .object(dropped)),
        ]).serialized()) ?? "{}"
        let description = options.description ?? "Kartpack package: " + outputs.map(\.name).joined(separator: ", ")
        return ArchiveMetadata(
            name: options.name ?? base, description: description, attribution: options.attribution,
            version: "1.0.0", type: "overlay", bounds: bounds, center: center, minZoom: options.minZoom,
            maxZoom: options.maxZoom, vectorLayers: vectorLayers, generator: Kartpack.generator,
            extra: [("kartpack", .string(runSummary))] + options.extraMetadata.map { ($0.key, .string($0.value)) })
    }

    static func counts(_ d: [String: Int]) -> JSONValue {
        .object(d.sorted { $0.key < $1.key }.map { ($0.key, .int(Int64($0.value))) })
    }

    func makeReport(state: State, stats: [Int: ZoomStats], summary: ArchiveSummary?, started: Date) -> ConvertReport {
        let inputs = state.reports
        var rejected: [String: Int] = [:]
        var repaired: [String: Int] = [:]
        for i in inputs {
            rejected.add(i.rejected)
            repaired.add(i.repaired)
        }
        let zooms = stats.keys.sorted().compactMap { z -> ConvertReport.Zoom? in
            guard let s = stats[z] else { return nil }
            return ConvertReport.Zoom(
                zoom: z, tiles: s.tiles, bytes: s.bytes, largestTileBytes: s.largest, features: s.features,
                dropped: s.dropped, keptFraction: s.keptFraction, tilesOverLimit: s.overLimit)
        }
        for z in zooms where z.tilesOverLimit > 0 {
            diagnostics.report(Diagnostic(.warning, code: "tile_over_limit",
                "\(z.tilesOverLimit) tiles at max zoom \(z.zoom) exceed the tile limits; written whole, since nothing is dropped at max zoom"))
        }
        var warnings: [String: Int] = [:]
        for (code, n) in diagnostics.counts { warnings[code] = n }
        let exit: ExitCode = state.rejectedInputs.isEmpty && summary != nil ? .success : .dataError
        return ConvertReport(
            kartpack: Kartpack.version, output: options.output, format: options.format.rawValue, inputs: inputs,
            featuresRead: inputs.reduce(0) { $0 + $1.records }, featuresWritten: inputs.reduce(0) { $0 + $1.written },
            rejected: rejected, repaired: repaired, zooms: zooms, tiles: summary?.addressedTiles ?? 0,
            tileContents: summary?.tileContents ?? 0, bytes: Int(summary?.fileBytes ?? 0),
            seconds: (Date().timeIntervalSince(started) * 1000).rounded() / 1000, timings: state.timings, warnings: warnings,
            exitCode: exit.rawValue, published: summary != nil)
    }
}
