import Foundation
import KartpackCore
import KartpackJSON
import TileArchive

/// Phase 5 of `convert`: the archive format, chosen before anything is read. Its declared tile order drives the
/// order phase and its tile compression the encode phase; at the end its writer takes every tile in archive order
/// and the metadata, verifies, and publishes atomically. The writer's temporary file exists only while tiles are
/// written; nothing is visible at the output path before, and a failure leaves a previous package untouched.
///
/// Input: `PublishSettings` (format, path, overwrite, temporary folder) and, to publish, the `EncodedTiles` and
/// the `PackageMetadataBuilder`. Output: the package and its `ArchiveSummary`.
package final class PublishPhase {
    private let settings: PublishSettings

    package init(settings: PublishSettings) {
        self.settings = settings
    }

    /// The order the format's writer needs.
    package var tileOrder: TileOrder { settings.format.tileOrder }
    /// How the format's writer stores tiles.
    package var tileCompression: TileCompression { settings.format.tileCompression }

    /// The writer, with its temporary file next to the output (or in `settings.temporaryDirectory`).
    private func makeWriter() throws -> any TileArchiveWriting {
        let writer: any TileArchiveWriting
        switch settings.format {
        case .pmtiles:
            writer = try PMTilesWriter(
                path: settings.output, overwrite: settings.force, temporaryDirectory: settings.temporaryDirectory)
        case .mbtiles:
            writer = try MBTilesWriter(path: settings.output, overwrite: settings.force)
        }
        precondition(writer.tileOrder == tileOrder && writer.tileCompression == tileCompression)
        return writer
    }

    /// Writes every tile (zoom by zoom, each in archive order; spilled tiles are read back a run at a time) and the
    /// metadata, and publishes. With `threads` > 1 the tiles are read and hashed on another thread, ahead of the
    /// writer (`TilePrefetch`): the same package.
    package func publish(
        _ tiles: EncodedTiles, zooms: ClosedRange<Int>, metadata: ArchiveMetadata, progress: ProgressReporter?,
        threads: Int = 1, checkCancelled: () throws -> Void
    ) throws -> ArchiveSummary {
        let writer = try makeWriter()
        do {
            let total = tiles.count
            var done = 0
            func wrote() throws {
                done += 1
                if done % 256 == 0 {
                    try checkCancelled()
                    progress?.update("writing tiles", done: done, total: total)
                }
            }
            if threads > 1 {
                let pmtiles = writer as? PMTilesWriter
                let hashes = pmtiles != nil
                let prefetch = TilePrefetch(tiles, zooms: zooms) { hashes ? PMTilesWriter.contentHash($0) : nil }
                defer { prefetch.stop() }
                while let batch = try prefetch.next() {
                    for t in batch {
                        let (tile, bytes) = (t.coordinate, t.bytes)
                        if let pmtiles, let hash = t.hash {
                            try pmtiles.write(z: tile.z, x: tile.x, y: tile.y, data: bytes, contentHash: hash)
                        } else {
                            try writer.write(z: tile.z, x: tile.x, y: tile.y, data: bytes)
                        }
                        try wrote()
                    }
                }
            } else {
                for z in zooms {
                    try tiles.forEachTile(zoom: z) { tile, bytes in
                        try writer.write(z: tile.z, x: tile.x, y: tile.y, data: bytes)
                        try wrote()
                    }
                }
            }
            progress?.finish()
            try checkCancelled()
            return try writer.finish(metadata: metadata)
        } catch {
            writer.abort()
            throw error
        }
    }
}

/// The package metadata of a run: TileJSON keys, `vector_layers` with typed fields, and a deterministic summary
/// (counts only: no times, hosts or absolute paths).
package struct PackageMetadataBuilder {
    package let settings: PublishSettings

    package func make(_ tiled: TiledLayers, stats: [Int: ZoomStats]) -> ArchiveMetadata {
        let base = ((settings.output as NSString).lastPathComponent as NSString).deletingPathExtension
        var bounds: GeoBounds?
        var center: GeoCenter?
        let d = tiled.dataBounds
        if !d.isEmpty {
            let sw = SphericalMercator.unproject(x: d.minX, y: d.minY)
            let ne = SphericalMercator.unproject(x: d.maxX, y: d.maxY)
            bounds = GeoBounds(
                west: max(-180, sw.longitude), south: max(-SphericalMercator.maxLatitude, sw.latitude),
                east: min(180, ne.longitude), north: min(SphericalMercator.maxLatitude, ne.latitude))
            let c = SphericalMercator.unproject(x: (d.minX + d.maxX) / 2, y: (d.minY + d.maxY) / 2)
            // Data split at ±180° keeps bounds −180…180 (TileJSON bounds must not wrap) but is centred on itself.
            let longitude = tiled.longitudes.centerAcrossAntimeridian ?? c.longitude
            center = GeoCenter(longitude: longitude, latitude: c.latitude, zoom: settings.maxZoom)
        }
        let outputs = tiled.written
        let vectorLayers = outputs.map { l in
            var fields = l.fields.map { VectorLayerField(name: $0.name, type: VectorFieldType($0.type)) }
            if l.hasClass && !fields.contains(where: { $0.name == "class" }) {
                fields.append(VectorLayerField(name: "class", type: .string))
            }
            for k in l.flagKeys where !fields.contains(where: { $0.name == k }) {
                fields.append(VectorLayerField(name: k, type: .boolean))
            }
            // Each layer's own zooms: per-input ranges and the style's zooms narrow them.
            return VectorLayerInfo(
                id: l.name, fields: fields, minZoom: l.zooms?.lowerBound ?? settings.minZoom,
                maxZoom: l.zooms?.upperBound ?? settings.maxZoom)
        }
        var inputs: [(key: String, value: JSONValue)] = []
        for input in tiled.inputs where input.error == nil {
            // A clipped run counts the records inside its clip: a region's package depends on its features only.
            let r =
                input.insideClip
                ?? ConvertReport.InsideClip(
                    records: input.records, written: input.written, rejected: input.rejected,
                    repaired: input.repaired)
            inputs.append(
                (
                    input.layer,
                    .object([
                        ("records", .int(Int64(r.records))),
                        ("written", .int(Int64(r.written))),
                        ("rejected", Self.counts(r.rejected)),
                        ("repaired", Self.counts(r.repaired)),
                    ])
                ))
        }
        var layers: [(key: String, value: JSONValue)] = []
        for l in outputs {
            layers.append(
                (
                    l.name,
                    .object([
                        ("features", .int(Int64(l.records.count))),
                        ("geometry", .string(l.family?.rawValue ?? "unknown")),
                        ("classes", Self.counts(l.classes)),
                        (
                            "classes_by_zoom",
                            .object(
                                l.classesByZoom.keys.sorted().map { z in
                                    (String(z), Self.counts(l.classesByZoom[z] ?? [:]))
                                })
                        ),
                    ])
                ))
        }
        var dropped: [(key: String, value: JSONValue)] = []
        for z in stats.keys.sorted() {
            guard let s = stats[z], !s.dropped.isEmpty else { continue }
            dropped.append((String(z), Self.counts(s.dropped)))
        }
        // A JSON string, not an object: TileJSON readers (tippecanoe-decode) expect string metadata values.
        let runSummary =
            (try? JSONValue.object([
                ("inputs", .object(inputs)), ("layers", .object(layers)), ("dropped_by_zoom", .object(dropped)),
            ]).serialized()) ?? "{}"
        let description = settings.description ?? "Kartpack package: " + outputs.map(\.name).joined(separator: ", ")
        return ArchiveMetadata(
            name: settings.name ?? base, description: description, attribution: settings.attribution,
            version: "1.0.0", type: "overlay", bounds: bounds, center: center, minZoom: settings.minZoom,
            maxZoom: settings.maxZoom, vectorLayers: vectorLayers, generator: Kartpack.generator,
            extra: [("kartpack", .string(runSummary))] + idMetadata(tiled)
                + settings.extraMetadata.map { ($0.key, .string($0.value)) } + missingMetadata(tiled))
    }

    /// `kartpack_missing_layers` for the inputs the run rejected, when the settings ask for it.
    private func missingMetadata(_ tiled: TiledLayers) -> [(key: String, value: JSONValue)] {
        guard let text = settings.missingLayersText?(tiled.inputs) else { return [] }
        return [(MissingLayer.metadataKey, .string(text))]
    }

    /// `kartpack_ids` when any layer takes its ids from a field (absent when every id is a record number).
    private func idMetadata(_ tiled: TiledLayers) -> [(key: String, value: JSONValue)] {
        guard tiled.idSchemes.contains(where: { $0.scheme.kind != .recordNumber }) else { return [] }
        var seen = Set<String>()
        let unique = tiled.idSchemes.filter { seen.insert($0.layer).inserted }
        return [(FeatureIDScheme.metadataKey, .string(FeatureIDScheme.metadataText(unique)))]
    }

    package static func counts<Key: Comparable & CustomStringConvertible>(_ d: [Key: Int]) -> JSONValue {
        .object(d.sorted { $0.key < $1.key }.map { ($0.key.description, .int(Int64($0.value))) })
    }
}
