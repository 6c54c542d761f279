import Foundation
import GeometryAlgorithms
import Gzip
import KartpackCore
import Styling
import Synchronization
import Testing
import TileArchive
import VectorTile

@testable import ConvertEngine

/// The three passes of the encode phase (`PreparePass`, `ThinPass`, `TileEncodePass`) and its tally, each on a
/// hand-made batch of one tile.
@Suite struct EncodePassTests {
    private let tile = TileCoordinate(z: 10, x: 3, y: 5)
    private let workers = ParallelTiles(threads: 2)

    private func square(_ x: Int32, _ y: Int32, _ side: Int32) -> PieceGeometry {
        PieceGeometry(polygons: [
            [[TilePoint(x, y), TilePoint(x + side, y), TilePoint(x + side, y + side), TilePoint(x, y + side)]]
        ])
    }

    /// A ring with a vertex every unit along its top edge (the simplifier removes them).
    private func noisySquare(_ x: Int32, _ y: Int32, _ side: Int32) -> PieceGeometry {
        var ring = (0...side).map { TilePoint(x + $0, y + ($0 % 2)) }
        ring += [TilePoint(x + side, y + side), TilePoint(x, y + side)]
        return PieceGeometry(polygons: [[ring]])
    }

    private func piece(_ feature: Int32, _ geometry: PieceGeometry) -> TilePiece {
        TilePiece(layer: 0, feature: feature, tile: tile, geometry: geometry)
    }

    private func records(_ n: Int) -> [RecordTable] {
        [RecordTable((0..<n).map { FeatureRecord(id: UInt64($0 + 1), properties: Properties(), rank: UInt64($0)) })]
    }

    /// A drop order of the batch's features measured at the batch's zoom (10), so a selection at zoom 9 can drop.
    private func order(_ pieces: [TilePiece], records: [RecordTable]) throws -> FeatureOrder {
        var measure = FeatureMeasure(records: records, extent: 4096, withSizes: false)
        measure.observe(pieces)
        return try FeatureOrder(measure: measure, records: records, options: ThinningOptions())
    }

    // MARK: PreparePass

    @Test func prepareSimplifiesSharedBordersAndKeepsOnlyTheBatchesPieces() throws {
        let outside = TilePiece(
            layer: 0, feature: 0,
            tile: TileCoordinate(z: 9, x: 1, y: 2), geometry: .polygons(PieceParts())
        )
        let pieces = [outside, piece(0, noisySquare(100, 100, 200)), piece(1, square(300, 100, 200))]
        let read = ZoomStream.Batch(pieces: pieces, runs: [1..<3], skipped: [(layer: 0, feature: 2)])
        let plain = PreparePass(sharedBorders: nil, smallFeatures: nil, workers: workers)
        let same = try plain.prepare(read, records: records(3), highest: [[-1, -1, -1]], zoom: 10)
        #expect(same.runs == [0..<2], "runs shifted to the batch's own pieces")
        #expect(same.pieces.map(\.geometry) == [pieces[1].geometry, pieces[2].geometry])
        #expect(same.absent.map { $0.feature } == [2])
        let shared = PreparePass(
            sharedBorders: SharedBorderPass(tolerance: 4, extent: 4096, buffer: 80), smallFeatures: nil,
            workers: workers)
        let simplified = try shared.prepare(read, records: records(3), highest: [[-1, -1, -1]], zoom: 10)
        #expect(simplified.pieces[0].geometry.commandCount < pieces[1].geometry.commandCount)
        #expect(simplified.sharedBorderFallbacks == 0)
        #expect(simplified.small.isEmpty)
    }

    @Test func prepareFindsSmallFeatureCandidatesOnlyBelowAFeaturesHighestZoom() throws {
        let dust = SmallFeatureDust(x: 50, y: 50, measure: 1, polygon: true, angle: 0)
        let read = ZoomStream.Batch(pieces: [piece(0, .dust(dust)), piece(1, .dust(dust))], runs: [0..<2], skipped: [])
        let pass = PreparePass(sharedBorders: nil, smallFeatures: SmallFeatureReduction(size: 2), workers: workers)
        // Feature 0 had pieces at zoom 11 (so 10 is not its highest); feature 1 none above 10.
        let batch = try pass.prepare(read, records: records(2), highest: [[11, -1]], zoom: 10)
        #expect(batch.small.map { $0.map(\.feature) } == [[0]])
        var highest: [[Int8]] = [[11, -1]]
        PreparePass.noteHighest(read, zoom: 10, in: &highest)
        #expect(highest == [[11, 10]])
    }

    // MARK: ThinPass

    @Test func withoutADropOrderEverythingIsKeptAndNothingSkipped() {
        let selection = ZoomSelection(zoom: 5, cutoff: 0, order: nil)
        #expect(selection.keeps(layer: 0, feature: 7))
        let thin = ThinPass(maxTileBytes: 100, maxTileFeatures: 2)
        #expect(thin.skipping(selection) == nil)
        #expect(thin.isOverLimit(EncodedTile(tile: tile, bytes: [UInt8](repeating: 0, count: 101), features: 1)))
        #expect(thin.isOverLimit(EncodedTile(tile: tile, bytes: [], features: 3)))
        #expect(!thin.isOverLimit(EncodedTile(tile: tile, bytes: [1], features: 2)))
    }

    @Test func aLeftOutPieceCoalescesIntoItsKeptNeighbour() throws {
        let pieces = [piece(0, square(0, 0, 100)), piece(1, square(100, 0, 100))]
        let recs = records(2)
        let o = try order(pieces, records: recs)
        let dropped = o.position[0][0] > o.position[0][1] ? 0 : 1
        var selection = ZoomSelection(zoom: 9, cutoff: o.position[0][dropped], order: o)
        #expect(!selection.keeps(layer: 0, feature: dropped) && selection.keeps(layer: 0, feature: 1 - dropped))
        let thin = ThinPass(maxTileBytes: 1 << 20, maxTileFeatures: 100, coalesce: [true], workers: workers)
        var batch = EncodeBatch(pieces: pieces, runs: [0..<2])
        #expect(thin.plan(batch, tile: 0, selection: selection).merged.isEmpty, "no neighbours found yet")
        try thin.findNeighbours(&batch, selection: selection)
        let plan = thin.plan(batch, tile: 0, selection: selection)
        #expect(plan.coalesced == [dropped])
        #expect(plan.geometry(dropped, pieces[dropped]) == nil)
        let kept = try #require(plan.geometry(1 - dropped, pieces[1 - dropped]))
        #expect(PieceSize.polygonArea(kept, extent: 4096) == 20_000)
        // At a cut-off that keeps both, nothing is merged.
        selection.cutoff = o.end
        let both = thin.plan(batch, tile: 0, selection: selection)
        #expect(both.coalesced.isEmpty && both.geometry(dropped, pieces[dropped]) != nil)
    }

    @Test func theFittingCutoffIsTheHighestAtWhichTheTileFits() throws {
        let pieces = (0..<6).map { piece(Int32($0), square(Int32($0) * 300, 0, 200)) }
        let recs = records(6)
        let o = try order(pieces, records: recs)
        let selection = ZoomSelection(zoom: 9, cutoff: o.end, order: o)
        let thin = ThinPass(maxTileBytes: 1000, maxTileFeatures: 3)
        let trials = Mutex<[Int32]>([])
        // A trial that says each kept feature costs 100 compressed bytes: 3 features fit both limits.
        let cutoff = try thin.fittingCutoff(
            EncodeBatch(pieces: pieces, runs: [0..<6]), tile: 0, compressed: 600, raw: 1200, selection: selection
        ) { s throws(PipelineError) in
            trials.withLock { $0.append(s.cutoff) }
            let kept = (0..<6).count { s.keeps(layer: 0, feature: $0) }
            return kept > 3 ? nil : kept * 100
        }
        #expect((0..<6).count { o.position[0][$0] < cutoff } == 3)
        #expect(trials.withLock { $0.count } == 1, "the model found it and one trial confirmed it")
    }

    /// When the model keeps missing, the search ends in a binary search of trials; trying the next probe ahead
    /// on a spare core (`ahead`) asks the same probes in the same order and finds the same cut-off, whatever the
    /// sizes (here not even growing with what the tile keeps).
    @Test func tryingTheNextProbeAheadFindsTheSameCutoff() throws {
        let n = 200
        let pieces = (0..<n).map { piece(Int32($0), square(Int32($0 % 20) * 200, Int32($0 / 20) * 200, 100)) }
        let recs = records(n)
        let o = try order(pieces, records: recs)
        let selection = ZoomSelection(zoom: 9, cutoff: o.end, order: o)
        let thin = ThinPass(maxTileBytes: 5000, maxTileFeatures: 1000, workers: workers)
        let batch = EncodeBatch(pieces: pieces, runs: [0..<n])
        for seed in 0..<12 {
            // Sizes that grow slower than what the tile keeps (the linear model misses four times), plus noise.
            @Sendable func size(_ kept: Int) -> Int {
                Int(1000 * Double(kept).squareRoot()) + (kept * 7919 + seed * 104_729) % (seed * 100 + 1)
            }
            var found: [Int32] = []
            var asked: [[Int32]] = []
            for ahead in [false, true] {
                let trials = Mutex<[Int32: Int]>([:])
                let cutoff = try thin.fittingCutoff(
                    batch, tile: 0, compressed: n * 10, raw: n * 20, selection: selection, ahead: ahead
                ) { s throws(PipelineError) in
                    let kept = (0..<n).count { s.keeps(layer: 0, feature: $0) }
                    trials.withLock { $0[s.cutoff] = kept }
                    return size(kept)
                }
                found.append(cutoff)
                asked.append(trials.withLock { Array($0.keys).sorted() })
            }
            #expect(found[0] == found[1], "seed \(seed)")
            #expect(asked[0].count > 5, "seed \(seed): the model missed and the binary search ran")
            #expect(Set(asked[0]).isSubset(of: Set(asked[1])), "seed \(seed): every probe of the search was tried")
        }
    }

    // MARK: TileEncodePass

    @Test func encodeWritesWhatThePlanKeepsAndChecksAndCompresses() throws {
        let pieces = [piece(0, square(0, 0, 100)), piece(1, square(200, 0, 100))]
        let batch = EncodeBatch(pieces: pieces, runs: [0..<2])
        var plan = TilePlan(selection: ZoomSelection(zoom: 10, cutoff: 0, order: nil))
        plan.replaced[1] = .some(nil)
        let pass = TileEncodePass(layerNames: ["stands"], extent: 4096, compression: .gzip)
        let raw = try pass.encode(batch, tile: 0, plan: plan, records: records(2), compress: false)
        #expect(raw.tile.features == 1 && raw.tile.tile == tile)
        let decoded = try MVTDecoder().decode(raw.tile.bytes)
        #expect(decoded.layers.map(\.name) == ["stands"])
        #expect(decoded.layers[0].features.map(\.id) == [1])
        let done = try pass.encode(batch, tile: 0, plan: plan, records: records(2), compress: true)
        #expect(try Gzip.decompress(done.tile.bytes, maxOutput: 1 << 20) == raw.tile.bytes)
        #expect(done.raw == raw.tile.bytes.count)
        #expect(try pass.trialSize(batch, tile: 0, plan: plan, records: records(2), maxFeatures: 0) == nil)
        #expect(
            try pass.trialSize(batch, tile: 0, plan: plan, records: records(2), maxFeatures: 1) == done.tile.bytes.count
        )
    }

    // MARK: ZoomTally

    @Test func theTallyCountsEachFeatureOnceAndByReason() throws {
        let pieces = [piece(0, square(0, 0, 100)), piece(1, square(200, 0, 100)), piece(2, square(400, 0, 50))]
        let recs = records(3)
        let o = try order(pieces, records: recs)
        let last = (0..<2).max { o.position[0][$0] < o.position[0][$1] }!
        var selection = ZoomSelection(zoom: 9, cutoff: o.position[0][last], order: o)
        selection.excluded = [[false, false, true]]
        var batch = EncodeBatch(pieces: pieces, runs: [0..<3])
        batch.absent = [(layer: 0, feature: 2)]
        var tally = ZoomTally()
        tally.count(batch, selection: selection)
        tally.count(batch, selection: selection)
        #expect(tally.present == 3 && tally.byLimit == 1 && tally.byMaxPoints == 1)
        let stats = tally.finished(reason: .droppedByFeatureLimit, hasOrder: true)
        #expect(stats.dropped == [.droppedByFeatureLimit: 1, .droppedByMaxPoints: 1])
        #expect(abs(stats.keptFraction - 1.0 / 3) < 1e-12)
    }

    // MARK: Thinning tiers

    @Test func higherTiersComeFirstInTheDropOrderAndNeverMarksTheProtectedEnd() throws {
        // Six squares in one tile: 0-2 of tier 0, 3 of priority 5, 4-5 protected (never).
        let pieces = (0..<6).map { piece(Int32($0), square(Int32($0) * 100, 100, 50)) }
        let recs = records(6)
        var measure = FeatureMeasure(records: recs, extent: 4096, withSizes: false)
        measure.observe(pieces)
        let tiers: [[Int16]] = [[0, 0, 0, 5, ThinningPolicy.neverTier, ThinningPolicy.neverTier]]
        for mode in ThinningMode.allCases {
            let order = try FeatureOrder(
                measure: measure, records: recs, options: ThinningOptions(mode: mode), tiers: tiers)
            let p = order.position[0]
            #expect(Set(p[4...5]) == [0, 1], "\(mode): the protected features are kept longest")
            #expect(p[3] == 2, "\(mode): then the priority 5 feature")
            #expect(Set(p[0...2]) == [3, 4, 5], "\(mode)")
            #expect(order.protectedEnd == 2)
        }
        let plain = try FeatureOrder(measure: measure, records: recs, options: ThinningOptions())
        #expect(plain.protectedEnd == 0)
    }
}
