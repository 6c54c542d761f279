import Dispatch
import Foundation
import KartpackCore
import Synchronization
import TileArchive
import VectorTile

/// A finished tile: MVT bytes in the archive's tile compression.
struct EncodedTile: Sendable {
    var tile: TileCoordinate
    var bytes: [UInt8]
    var features: Int
}

/// What the encode phase hands the publish phase: tiles per zoom (in archive order) and per-zoom statistics.
struct EncodedTiles: Sendable {
    var byZoom: [Int: [EncodedTile]]
    var stats: [Int: ZoomStats]

    /// Tiles in all.
    var count: Int { byZoom.values.reduce(0) { $0 + $1.count } }
}

/// Per-zoom statistics of the tile phase.
struct ZoomStats: Sendable {
    var tiles = 0
    var bytes = 0
    var largest = 0
    var features = 0
    var dropped: [String: Int] = [:]
    var keptFraction = 1.0
    var overLimit = 0
}

/// Phase 4 of `convert`: encodes the MVT tiles of each zoom level (in parallel), checks each with the bounded
/// decoder, compresses it as the archive does, and enforces the tile limits.
///
/// Limits strategy (deterministic and zoom-level consistent): each feature has a fixed pseudo-random rank. When
/// any tile of zoom z exceeds `maxTileBytes` (compressed) or `maxTileFeatures`, a rank cut-off is lowered for the
/// whole zoom level — every tile of that zoom drops the same features — until every tile fits. Zooms are processed
/// from the max zoom down and the cut-off only ever decreases, so a feature shown at zoom z is shown at every
/// higher zoom. At the max zoom nothing is dropped (every feature must appear there); a tile over a limit is
/// written anyway and counted in `tilesOverLimit` with a warning.
struct EncodePhase {
    var layerNames: [String]
    var extent: Int
    var maxTileBytes: Int
    var maxTileFeatures: Int
    var threads: Int
    var maxZoom: Int
    /// The archive's tile compression (the writer's declaration).
    var compression: TileCompression

    /// Encodes every zoom, from `maxZoom` down; returns tiles per zoom (in `pieces` order) and statistics.
    func run(
        _ ordered: TileRuns, records: [[FeatureRecord]], zooms: ClosedRange<Int>, progress: ProgressReporter?
    ) throws -> EncodedTiles {
        var tiles: [Int: [EncodedTile]] = [:]
        var stats: [Int: ZoomStats] = [:]
        var cutoff = UInt64.max
        // The limit that first lowered the cut-off; lower zooms inherit the cut-off and its reason.
        var reason: String?
        for z in zooms.reversed() {
            // One zoom's pieces at a time (merged from the sort runs when they were spilled).
            let (pieces, runs) = try ordered.zoom(z)
            var s = ZoomStats()
            var encoded = try encodeAll(runs, pieces: pieces, records: records, cutoff: cutoff)
            var attempt = 0
            while true {
                let over = encoded.indices.filter { isOverLimit(encoded[$0]) }
                guard !over.isEmpty, cutoff > 0 else { break }
                if z == maxZoom {
                    s.overLimit = over.count
                    break
                }
                // Search the cut-off on the offending tiles only (every other tile only loses features as it
                // drops), then encode the whole zoom once at that cut-off and check every tile again.
                var probe = over
                var probeTiles = over.map { encoded[$0] }
                while !probe.isEmpty, cutoff > 0 {
                    let (factor, trigger) = limitFactor(probeTiles)
                    reason = reason ?? trigger
                    attempt += 1
                    // Give up thinning after 40 rounds: drop everything below max zoom rather than loop.
                    cutoff = attempt >= 40 ? 0 : min(cutoff, UInt64(Double(cutoff) * factor * 0.9))
                    probeTiles = try encodeAll(probe.map { runs[$0] }, pieces: pieces, records: records, cutoff: cutoff)
                    let still = probeTiles.indices.filter { isOverLimit(probeTiles[$0]) }
                    probe = still.map { probe[$0] }
                    probeTiles = still.map { probeTiles[$0] }
                }
                encoded = try encodeAll(runs, pieces: pieces, records: records, cutoff: cutoff)
            }
            s.keptFraction = Double(cutoff) / Double(UInt64.max)
            if cutoff != UInt64.max {
                // Features (distinct per zoom) left out by the cut-off, under the limit that first triggered it.
                var seen = Set<Int64>()
                for run in runs {
                    for p in pieces[run] where records[Int(p.layer)][Int(p.feature)].rank >= cutoff {
                        seen.insert(Int64(p.layer) << 32 | Int64(p.feature))
                    }
                }
                if !seen.isEmpty { s.dropped[reason ?? "dropped_by_size_limit"] = seen.count }
            }
            encoded.removeAll { $0.features == 0 }
            for t in encoded {
                s.tiles += 1
                s.bytes += t.bytes.count
                s.largest = max(s.largest, t.bytes.count)
                s.features += t.features
            }
            tiles[z] = encoded
            stats[z] = s
            progress?.update("encoding tiles", done: zooms.upperBound - z + 1, total: zooms.count)
        }
        return EncodedTiles(byZoom: tiles, stats: stats)
    }

    private func isOverLimit(_ t: EncodedTile) -> Bool { t.bytes.count > maxTileBytes || t.features > maxTileFeatures }

    /// How far the worst tile is over a limit (the fraction to keep), and which limit it broke first.
    private func limitFactor(_ tiles: [EncodedTile]) -> (Double, String?) {
        var factor = 1.0
        var trigger: String?
        for t in tiles {
            if t.bytes.count > maxTileBytes {
                factor = min(factor, Double(maxTileBytes) / Double(t.bytes.count))
                trigger = trigger ?? "dropped_by_size_limit"
            }
            if t.features > maxTileFeatures {
                factor = min(factor, Double(maxTileFeatures) / Double(t.features))
                trigger = trigger ?? "dropped_by_feature_limit"
            }
        }
        return (factor, trigger)
    }

    /// Encodes the tiles of one zoom in parallel; results keep the order of `runs`.
    private func encodeAll(_ runs: [Range<Int>], pieces: [PlacedPiece], records: [[FeatureRecord]], cutoff: UInt64) throws -> [EncodedTile] {
        let results = Mutex<[Result<EncodedTile, PipelineError>?]>(Array(repeating: nil, count: runs.count))
        let next = Atomic<Int>(0)
        let workers = max(1, min(threads, runs.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < runs.count else { return }
                let r = Result { () throws(PipelineError) -> EncodedTile in
                    try encode(runs[i], pieces: pieces, records: records, cutoff: cutoff)
                }
                results.withLock { $0[i] = r }
            }
        }
        return try results.withLock { all in
            try all.map { result throws(PipelineError) -> EncodedTile in
                guard let result else { throw PipelineError.tileEncoding(tile: "?", reason: "not encoded") }
                return try result.get()
            }
        }
    }

    private func encode(_ run: Range<Int>, pieces: [PlacedPiece], records: [[FeatureRecord]], cutoff: UInt64) throws(PipelineError) -> EncodedTile {
        var builders: [MVTLayerBuilder?] = Array(repeating: nil, count: layerNames.count)
        var count = 0
        for p in pieces[run] {
            let rec = records[Int(p.layer)][Int(p.feature)]
            guard rec.rank < cutoff || cutoff == UInt64.max else { continue }
            let l = Int(p.layer)
            if builders[l] == nil { builders[l] = MVTLayerBuilder(name: layerNames[l], extent: extent) }
            let props = rec.properties(atZoom: p.piece.tile.z)
            if builders[l]?.addFeature(id: rec.id, type: p.piece.type, geometry: p.piece.commands, properties: props) == true {
                count += 1
            }
        }
        let tile = pieces[run.lowerBound].piece.tile
        let layers = builders.compactMap { $0 }.filter { !$0.isEmpty }
        guard !layers.isEmpty else { return EncodedTile(tile: tile, bytes: [], features: 0) }
        do {
            let raw = try encodeTile(layers)
            // Pre-publish check (formats.md §6): every tile parses as valid MVT 2.1 (commands, indices, winding,
            // UTF-8) with our own bounded decoder before it is written.
            _ = try MVTDecoder().decode(raw)
            return EncodedTile(tile: tile, bytes: try compression.compress(raw), features: count)
        } catch {
            throw PipelineError.tileEncoding(tile: tile.description, reason: "\(error)")
        }
    }
}
