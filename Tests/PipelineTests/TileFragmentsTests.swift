import GeometryAlgorithms
import KartpackCore
import Testing
import TileArchive
import VectorTile

@testable import ConvertEngine

/// `TileFragments`: a tile written at a lower cut-off from its features encoded once is byte for byte the tile
/// `TileEncodePass.encode` writes there, whatever the properties (shared and unique values, repeated keys, nulls,
/// classes by zoom), layers and ids.
@Suite struct TileFragmentsTests {
    private let tile = TileCoordinate(z: 9, x: 3, y: 5)
    private let pass = TileEncodePass(layerNames: ["places", "roads"], extent: 4096, compression: .gzip)

    /// A small deterministic generator (the same inputs every run).
    private struct Random {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
    }

    private func value(_ r: inout Random, feature f: Int) -> PropertyValue {
        switch r.next(8) {
        case 0: .string("shared \(r.next(4))")
        case 1: .string("unique \(f) é \(r.next(1000))")
        case 2: .int(Int64(r.next(7)) - 3)
        case 3: .uint(UInt64(r.next(5)))
        case 4: .double(Double(r.next(4)) / 2)
        case 5: .bool(r.next(2) == 0)
        case 6: .null
        default: .string("")
        }
    }

    /// `n` features in two layers at random places, with random properties and ids, pieces in one tile.
    private func input(seed: UInt64, n: Int) -> (pieces: [TilePiece], records: [RecordTable]) {
        var r = Random(state: seed)
        let keys = ["name", "kind", "pop", "rank", "name_en"]
        var layers: [[FeatureRecord]] = [[], []]
        var pieces: [TilePiece] = []
        for f in 0..<n {
            let l = r.next(4) == 0 ? 1 : 0
            var entries: [(String, PropertyValue)] = []
            for _ in 0..<r.next(6) { entries.append((keys[r.next(keys.count)], value(&r, feature: f))) }
            var record = FeatureRecord(
                id: r.next(5) == 0 ? nil : UInt64(r.next(100_000)), properties: Properties(entries),
                rank: UInt64(r.next(1000)))
            if r.next(6) == 0 { record.classes = [nil, r.next(2) == 0 ? "town" : nil, "city"] }
            if r.next(8) == 0 { record.flags = [[], [], ["capital"]] }
            record.classBaseZoom = 7
            let feature = Int32(layers[l].count)
            layers[l].append(record)
            let (x, y) = (Int32(r.next(4096)), Int32(r.next(4096)))
            let geometry: PieceGeometry =
                l == 0 ? .points([TilePoint(x, y)]) : PieceGeometry(lines: [[TilePoint(x, y), TilePoint(y, x + 1)]])
            pieces.append(TilePiece(layer: Int32(l), feature: feature, tile: tile, geometry: geometry))
        }
        return (pieces, layers.map { RecordTable($0) })
    }

    @Test func aTrialWrittenFromFragmentsIsTheTileEncodedInFull() throws {
        for seed in UInt64(1)...12 {
            let (pieces, records) = input(seed: seed, n: 40 + Int(seed) * 13)
            let batch = EncodeBatch(pieces: pieces, runs: [0..<pieces.count])
            var measure = FeatureMeasure(records: records, extent: 4096, withSizes: false)
            measure.observe(pieces)
            // Measured at z10, the batch's pieces (z9) are below every feature's highest zoom: all can be dropped.
            let order = try FeatureOrder(measure: measure, records: records, options: ThinningOptions())
            let start = ZoomSelection(zoom: 8, cutoff: order.end, order: order)
            let fragments = try #require(
                try TileFragments(batch, tile: 0, plan: TilePlan(selection: start), records: records, encoder: pass))
            var cutoffs = Set(order.position.flatMap { $0 })
            cutoffs.insert(0)
            cutoffs.insert(order.end)
            for cutoff in cutoffs.sorted() {
                var selection = start
                selection.cutoff = cutoff
                let plan = TilePlan(selection: selection)
                let full = try pass.encode(batch, tile: 0, plan: plan, records: records, compress: false).tile
                let made = try #require(try fragments.encode(at: plan))
                #expect(made.bytes == full.bytes, "seed \(seed), cut-off \(cutoff)")
                #expect(made.features == full.features, "seed \(seed), cut-off \(cutoff)")
                let size = try pass.trialSize(
                    batch, tile: 0, plan: plan, records: records, maxFeatures: .max, fragments: fragments)
                #expect(size == (try pass.trialSize(batch, tile: 0, plan: plan, records: records, maxFeatures: .max)))
            }
        }
    }

    /// A plan that draws a piece otherwise, or keeps a piece the fragments left out, is encoded in full.
    @Test func aPlanTheFragmentsDoNotHoldIsNotWrittenFromThem() throws {
        let (pieces, records) = input(seed: 99, n: 30)
        let batch = EncodeBatch(pieces: pieces, runs: [0..<pieces.count])
        var measure = FeatureMeasure(records: records, extent: 4096, withSizes: false)
        measure.observe(pieces)
        let order = try FeatureOrder(measure: measure, records: records, options: ThinningOptions())
        let half = ZoomSelection(zoom: 8, cutoff: order.end / 2, order: order)
        let fragments = try #require(
            try TileFragments(batch, tile: 0, plan: TilePlan(selection: half), records: records, encoder: pass))
        var all = half
        all.cutoff = order.end
        #expect(try fragments.encode(at: TilePlan(selection: all)) == nil, "keeps pieces the fragments lack")
        var squared = TilePlan(selection: half)
        squared.replaced[0] = .some(nil)
        #expect(try fragments.encode(at: squared) == nil)
        #expect(try TileFragments(batch, tile: 0, plan: squared, records: records, encoder: pass) == nil)
        let fallback = try pass.trialSize(
            batch, tile: 0, plan: squared, records: records, maxFeatures: .max, fragments: fragments)
        #expect(fallback == (try pass.trialSize(batch, tile: 0, plan: squared, records: records, maxFeatures: .max)))
    }
}
