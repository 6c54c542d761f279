/// The first encode pass: makes a batch of merged tiles ready to encode, once per batch (a thinning round that
/// encodes the zoom again reuses it, `HeldBatches`).
///
/// Input: a batch of one zoom from the sort runs (`ZoomStream.Batch`). Output: an `EncodeBatch` with
/// 1. **shared borders** (`sharedBorders`, on by default): the polygon pieces of each layer in each tile simplified
///    together (`SharedBorderPass`), so neighbours keep identical borders;
/// 2. **small features** (`smallFeatures`, on by default): per tile, the dust pieces small-feature reduction may
///    draw as squares or dashes (`SmallFeatureReduction.candidates`); not at a feature's highest zoom.
/// The pieces the merge passed over (the zoom cannot keep them) are kept as `absent`, only for the counts.
package struct PreparePass: Sendable {
    /// Simplifies polygon pieces per tile and layer (nil: `TileStage` simplified them per feature).
    package var sharedBorders: SharedBorderPass?
    /// Replaces small polygons and lines by squares that keep their area per tile (nil: off).
    package var smallFeatures: SmallFeatureReduction?
    package var workers: ParallelTiles

    /// The batch `read` of zoom `z` made ready; `highest` holds per layer and feature the highest zoom it had
    /// pieces at before `z` (-1: none, so `z` is its highest).
    package func prepare(
        _ read: ZoomStream.Batch, records: [RecordTable], highest: [[Int8]], zoom z: Int
    ) throws(PipelineError) -> EncodeBatch {
        // Pieces held in memory come with every zoom's pieces around the runs: keep only this batch's.
        let span = (read.runs.first?.lowerBound ?? 0)..<(read.runs.last?.upperBound ?? 0)
        let shift = span.lowerBound
        let (merged, mergedRuns) = (read.pieces, read.runs)
        let orders = try workers.map(mergedRuns.count) { i in
            Self.stableOrder(mergedRuns[i], pieces: merged, records: records)
        }
        var batch = EncodeBatch(
            pieces: Self.reordered(merged, span: span, runs: mergedRuns, orders: orders),
            runs: mergedRuns.map { ($0.lowerBound - shift)..<($0.upperBound - shift) })
        batch.absent = read.skipped
        let pieces = batch.pieces
        let runs = batch.runs
        if let pass = sharedBorders {
            let current = pieces
            let results = try workers.map(runs.count) { i throws(PipelineError) in
                try pass.simplify(runs[i], pieces: current)
            }
            for r in results {
                for (i, g) in r.geometries {
                    batch.pieces[i].geometry = g
                    batch.pieces[i].needsRepair = false
                }
                batch.sharedBorderFallbacks += r.fallbacks
            }
            batch.tileFallbacks = results.map(\.fallbacks)
        }
        if let small = smallFeatures {
            let current = batch.pieces
            batch.small = try workers.map(runs.count) { i in
                small.candidates(runs[i], pieces: current, records: records) { l, f in highest[Int(l)][Int(f)] <= z }
            }
        }
        return batch
    }

    /// `pieces[span]` in one new array, each tile's pieces (`runs`, in tile order, inside `span`) in its `orders`,
    /// anything between runs where it was. One copy: copying the span and then overwriting it in order made two
    /// arrays of the batch's size (each mapped and faulted in page by page when it is over malloc's mmap threshold).
    static func reordered(_ pieces: [TilePiece], span: Range<Int>, runs: [Range<Int>], orders: [[Int]]) -> [TilePiece] {
        var out: [TilePiece] = []
        out.reserveCapacity(span.count)
        var next = span.lowerBound
        for (run, order) in zip(runs, orders) {
            out.append(contentsOf: pieces[next..<run.lowerBound])
            for i in order { out.append(pieces[i]) }
            next = run.upperBound
        }
        out.append(contentsOf: pieces[next..<span.upperBound])
        return out
    }

    /// The indices of one tile's pieces (`pieces[run]`, merged in (layer, feature) order) in the order they are
    /// encoded in: by layer, then the feature's place in the tile (`place`), then its stable key (its rank,
    /// `FeatureKey`), then (equal keys: the same feature twice) input order, then the feature's own piece order.
    /// Every later step that breaks ties by a piece's place in its tile (shared borders, small features,
    /// coalescing, the MVT) so breaks them by the geometry and the key, not by the record order of the export.
    static func stableOrder(_ run: Range<Int>, pieces: [TilePiece], records: [RecordTable]) -> [Int] {
        var keyed: [(layer: Int32, place: UInt64, rank: UInt64, feature: Int32, index: Int)] = []
        keyed.reserveCapacity(run.count)
        var place: UInt64 = 0
        for i in run {
            let p = pieces[i]
            // A feature's pieces are merged next to each other; they keep together at the place of its first.
            if i == run.lowerBound || pieces[i - 1].layer != p.layer || pieces[i - 1].feature != p.feature {
                place = Self.place(p.geometry)
            }
            keyed.append((p.layer, place, records[Int(p.layer)].rank(Int(p.feature)), p.feature, i))
        }
        keyed.sort {
            ($0.layer, $0.place, $0.rank, $0.feature, $0.index) < ($1.layer, $1.place, $1.rank, $1.feature, $1.index)
        }
        return keyed.map(\.index)
    }

    /// Where a piece starts, on a Z-order curve over its tile (its first point; buffer included): a layer's
    /// features are written in this order, so that the MVT cursor moves little from one feature to the next and
    /// the tile compresses better (7–8 % fewer bytes on a tile of 2,000 places than in key order, the order
    /// tippecanoe's index gives too).
    static func place(_ geometry: PieceGeometry) -> UInt64 {
        guard let p = geometry.firstPoint else { return 0 }
        func unit(_ v: Int32) -> UInt32 { UInt32(min(max(Int64(v) + (1 << 20), 0), (1 << 30) - 1)) }
        return FeatureAnchor(x: unit(p.x), y: unit(p.y)).morton
    }

    /// Marks the features of `read` not seen at a higher zoom as at their highest zoom `z` (`highest`, -1: none).
    static func noteHighest(_ read: ZoomStream.Batch, zoom z: Int, in highest: inout [[Int8]]) {
        for run in read.runs {
            for p in read.pieces[run] where highest[Int(p.layer)][Int(p.feature)] < 0 {
                highest[Int(p.layer)][Int(p.feature)] = Int8(z)
            }
        }
        for (l, f) in read.skipped where highest[Int(l)][Int(f)] < 0 {
            highest[Int(l)][Int(f)] = Int8(z)
        }
    }
}
