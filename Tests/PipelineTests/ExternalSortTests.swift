import Foundation
import GeometryAlgorithms
import KartpackCore
import KartpackTestSupport
import Testing
import TileArchive
import VectorTile

@testable import ConvertEngine

/// The external sort of tile pieces (issue 10): the run codec, the run store and its k-way merge, the spool's
/// budget and rollback, and the scratch checks.
@Suite struct ExternalSortTests {
    /// Deterministic pseudo-random pieces over zooms 3–5, with repeated (tile, layer, feature) triples.
    private func pieces(_ n: Int, seed: UInt64 = 7) -> [TilePiece] {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<n).map { i in
            let z = 3 + next(3)
            let tile = TileCoordinate(z: z, x: next(1 << z), y: next(1 << z))
            // Coordinates far apart now and then (long varints), parts of one or more rings, dust now and then.
            func coordinate() -> Int32 { Int32(next(i % 5 == 0 ? 1 << 31 : 300)) - (i % 5 == 0 ? 1 << 30 : 0) }
            let points = (0..<(1 + next(40))).map { _ in TilePoint(coordinate(), coordinate()) }
            let split = next(points.count)
            let counts: [UInt32] = split == 0 ? [] : [UInt32(split) | 1 << 31, UInt32(points.count - split)]
            let geometry: PieceGeometry
            switch next(4) {
            case 0: geometry = .points(points)
            case 1: geometry = .lines(PieceParts(points: points, counts: counts))
            case 2: geometry = .polygons(PieceParts(points: points, counts: counts))
            default:
                geometry = .dust(
                    SmallFeatureDust(
                        x: points[0].x, y: points[0].y, measure: Double(next(1000)) / 7, polygon: next(2) == 0,
                        angle: Double(next(6)) / 1.3))
            }
            return TilePiece(
                layer: Int32(next(3)), feature: Int32(next(50)), tile: tile, geometry: geometry)
        }
    }

    /// What one sort of everything in memory gives, as comparable tuples (with the geometry, which tells ties apart).
    private func expected(_ all: [TilePiece], order: TileOrder) -> [String] {
        var copy = all
        let sorted = PieceSpool.sortedIndices(&copy, order: order)
        return sorted.map { describe(copy[$0]) }
    }

    private func describe(_ p: TilePiece) -> String {
        // A one-point multipoint reads back as the same point held inline (`PieceGeometry.point`).
        var g = p.geometry
        if case .points(let points) = g { g = PieceGeometry(points: points) }
        return "\(p.tile) \(p.key) \(p.layer) \(p.feature) \(p.type) \(g)"
    }

    private func merged(_ runs: TileRuns, zooms: ClosedRange<Int>) throws -> [String] {
        var out: [String] = []
        for z in zooms {
            let (pieces, tiles) = try runs.zoom(z)
            for t in tiles {
                #expect(Set(pieces[t].map(\.key)).count == 1, "a tile's range holds one tile")
                out += pieces[t].map(describe)
            }
        }
        return out
    }

    @Test func theCodecRoundTripsSortedPiecesOfOneZoom() throws {
        var all = pieces(2000).filter { $0.tile.z == 4 }
        let order = PieceSpool.sortedIndices(&all, order: .hilbert)
        var encoder = PieceEncoder()
        for i in order { encoder.append(all[i]) }
        var decoder = PieceDecoder(bytes: encoder.bytes, zoom: 4)
        var back: [String] = []
        while let p = try decoder.next() { back.append(describe(p)) }
        #expect(back == order.map { describe(all[$0]) })
        // Far smaller than the pieces in memory (48 bytes a piece and its points' arrays).
        let held = all.reduce(0) { $0 + PieceSpool.bytes(of: $1) }
        #expect(encoder.bytes.count * 5 < held * 2)
    }

    @Test func theSortOnTwoThreadsGivesTheOrderOfOne() {
        // Past the size where the halves are sorted side by side; many repeated (tile, layer, feature) triples.
        let all = pieces(PieceSpool.parallelSortMinimum * 2 + 17, seed: 11)
        for order in [TileOrder.hilbert, .zxy] {
            var one = all
            var two = all
            #expect(
                PieceSpool.sortedIndices(&one, order: order) == PieceSpool.sortedIndices(&two, order: order, threads: 2)
            )
        }
    }

    @Test func piecesMovedIntoOrderAreTheIndexSortsPieces() {
        // Small (one thread) and past the size where keys, sort and moves go on two threads.
        for n in [0, 1, 500, PieceSpool.parallelSortMinimum * 2 + 3] {
            let all = pieces(n, seed: 13)
            for order in [TileOrder.hilbert, .zxy] {
                var copy = all
                let expected = PieceSpool.sortedIndices(&copy, order: order).map { describe(copy[$0]) }
                for threads in [1, 2] {
                    var moved = all
                    let sorted = PieceSpool.sorted(&moved, order: order, threads: threads)
                    #expect(moved.isEmpty)
                    #expect(sorted.map(describe) == expected, "\(n) pieces, \(order), \(threads) threads")
                }
            }
        }
    }

    @Test func aTruncatedBlockThrowsInsteadOfTrapping() throws {
        var all = pieces(50).filter { $0.tile.z == 3 }
        let order = PieceSpool.sortedIndices(&all, order: .zxy)
        var encoder = PieceEncoder()
        for i in order { encoder.append(all[i]) }
        for cut in [1, 2, 5, encoder.bytes.count / 2, encoder.bytes.count - 1] {
            var decoder = PieceDecoder(bytes: Array(encoder.bytes.prefix(cut)), zoom: 3)
            #expect(throws: SpillError.self) {
                while try decoder.next() != nil {}
            }
        }
    }

    /// Spilled runs, written on the adding thread or in the background, compressed or not.
    @Test(arguments: [TileOrder.hilbert, .zxy], [(true, false), (false, false), (true, true), (false, true)])
    func spilledRunsMergeToTheOneInMemorySort(order: TileOrder, spilling: (compress: Bool, background: Bool)) throws {
        let dir = try TemporaryDirectory()
        let all = pieces(5000)
        let place = ScratchPlace(folder: dir.path, outputName: "x.pmtiles", compress: spilling.compress)
        // A tiny budget: many runs, each of several blocks.
        var spool = PieceSpool(budget: 64 << 10, order: order, scratch: place, background: spilling.background)
        for (i, p) in all.enumerated() {
            spool.append(p)
            if i % 97 == 0 { try spool.spillIfOverBudget() }
        }
        #expect(spool.spilledRuns > 5)
        let runs = try OrderPhase(order: order).run(&spool)
        #expect(runs.spilledRuns > 5)
        #expect(runs.scratchBytes > 0)
        #expect(try merged(runs, zooms: 0...8) == expected(all, order: order))
        // The scratch file has no name: nothing is left in the folder, even before it is closed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        runs.close()
    }

    /// `background`: the spool spills on a thread of its own, and the batches are read a batch ahead (`ReadAhead`).
    @Test(arguments: [1, 7, 100, 100_000], [false, true])
    func aZoomStreamedInBatchesIsTheMergedZoomWithoutCuttingATile(maxPieces: Int, background: Bool) throws {
        let dir = try TemporaryDirectory()
        let all = pieces(4000)
        var spool = PieceSpool(
            budget: 64 << 10, order: .hilbert, scratch: ScratchPlace(folder: dir.path, outputName: "x"),
            background: background)
        for p in all {
            spool.append(p)
            try spool.spillIfOverBudget()
        }
        let runs = try OrderPhase(order: .hilbert, threads: background ? 2 : 1).run(&spool)
        #expect(runs.spilledRuns > 3)
        #expect(runs.readsAhead == background)
        for z in 3...5 {
            let (whole, tiles) = try runs.zoom(z)
            var joined: [String] = []
            var keys: [UInt64] = []
            var batches = 0
            try runs.forEachBatch(zoom: z, maxPieces: maxPieces) { pieces, ranges in
                batches += 1
                #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == pieces.count)
                for r in ranges {
                    #expect(Set(pieces[r].map(\.key)).count == 1)
                    keys.append(pieces[r.lowerBound].key)
                }
                joined += pieces.map(describe)
            }
            #expect(joined == whole.map(describe))
            #expect(keys.count == tiles.count && Set(keys).count == keys.count, "a tile was cut between batches")
            #expect(batches == (maxPieces == 1 ? tiles.count : maxPieces >= whole.count ? 1 : batches))
            #expect(maxPieces >= whole.count || batches > 1)
        }
    }

    /// A merge that passes over some pieces gives the merge of the rest, tile for tile, and lists every piece it
    /// passed over once (spilled or held, in any batch size); a rolled-back piece is neither kept nor listed.
    @Test(arguments: [(true, 1), (true, 50), (true, 100_000), (false, 100_000)], [false, true])
    func aStreamThatSkipsPiecesGivesTheRestAndListsWhatItSkipped(
        spilling: (spill: Bool, maxPieces: Int), background: Bool
    ) throws {
        let (spill, maxPieces) = spilling
        let dir = try TemporaryDirectory()
        var spool = PieceSpool(
            budget: spill ? 64 << 10 : 1 << 30, order: .hilbert,
            scratch: ScratchPlace(folder: dir.path, outputName: "x"), background: background)
        let all = pieces(4000)
        for p in all.prefix(3000) {
            spool.append(p)
            try spool.spillIfOverBudget()
        }
        let mark = spool.mark()
        for p in pieces(500, seed: 9) {
            var p = p
            p.feature = 50 + p.feature
            spool.append(p)
            try spool.spillIfOverBudget()
        }
        spool.rollback(to: mark, recordCounts: [50, 50, 50])
        for p in all.suffix(1000) { spool.append(p) }
        let runs = try OrderPhase(order: .hilbert, threads: background ? 2 : 1).run(&spool)
        #expect(spill == (runs.spilledRuns > 3))
        #expect(runs.readsAhead == (spill && background))
        // Odd features of layer 1 and every feature of layer 2 below 10 are passed over.
        let skip: (Int32, Int32) -> Bool = { l, f in (l == 1 && f % 2 == 1) || (l == 2 && f < 10) }
        for z in 3...5 {
            let (whole, tiles) = try runs.zoom(z)
            let wanted = tiles.flatMap { whole[$0] }.filter { !skip($0.layer, $0.feature) }.map(describe)
            var skippedWanted = tiles.flatMap { whole[$0] }.filter { skip($0.layer, $0.feature) }
                .map { "\($0.layer) \($0.feature)" }
            var joined: [String] = []
            var skipped: [String] = []
            try runs.forEachBatch(zoom: z, maxPieces: maxPieces, skipping: skip) { b in
                for r in b.runs {
                    #expect(!r.isEmpty && Set(b.pieces[r].map(\.key)).count == 1)
                    joined += b.pieces[r].map(describe)
                }
                skipped += b.skipped.map { "\($0.layer) \($0.feature)" }
            }
            #expect(joined == wanted)
            skippedWanted.sort()
            #expect(skipped.sorted() == skippedWanted)
            #expect(!skipped.isEmpty)
        }
    }

    @Test func withoutSpillingThePiecesAreSortedInMemory() throws {
        let all = pieces(3000)
        var spool = PieceSpool(order: .hilbert)
        for p in all { spool.append(p) }
        try spool.spillIfOverBudget()
        let runs = try OrderPhase(order: .hilbert).run(&spool)
        #expect(runs.spilledRuns == 0)
        #expect(try merged(runs, zooms: 0...8) == expected(all, order: .hilbert))
    }

    /// The held pieces freed in the background: the runs are empty at once, `wait` returns once they are freed (and
    /// again at once); with nothing held there is nothing to wait for.
    @Test func heldPiecesAreFreedInTheBackgroundAndWaitedFor() throws {
        var spool = PieceSpool(order: .hilbert)
        for p in pieces(3000) { spool.append(p) }
        let runs = try OrderPhase(order: .hilbert).run(&spool)
        let release = try #require(runs.releaseInBackground())
        #expect(try merged(runs, zooms: 0...8).isEmpty)
        release.wait()
        release.wait()
        #expect(runs.releaseInBackground() == nil)
    }

    /// A rollback past runs written since the mark (the last of them perhaps still being written in the background).
    @Test(arguments: [false, true])
    func aRollbackForgetsThePiecesOfTheRejectedInputInRunsAndInMemory(background: Bool) throws {
        let dir = try TemporaryDirectory()
        let place = ScratchPlace(folder: dir.path, outputName: "x.pmtiles")
        var spool = PieceSpool(budget: 64 << 10, order: .hilbert, scratch: place, background: background)
        // Layer 0 has features 0..<20 before the mark; the failed input adds 20..<50 to layer 0 and a new layer 1.
        let kept = pieces(800).map { p -> TilePiece in
            var p = p
            p.layer = 0
            p.feature %= 20
            return p
        }
        for p in kept { spool.append(p) }
        try spool.spillIfOverBudget()
        let runsBefore = spool.spilledRuns
        let mark = spool.mark()
        for p in pieces(3000, seed: 11) {
            var p = p
            p.layer = p.layer % 2
            if p.layer == 0 { p.feature = 20 + p.feature % 30 }
            spool.append(p)
            try spool.spillIfOverBudget()
        }
        #expect(spool.spilledRuns > runsBefore)
        spool.rollback(to: mark, recordCounts: [20])
        // The next input reuses feature indices 20… of layer 0 and layer index 1: those must stay.
        let later = pieces(300, seed: 5).map { p -> TilePiece in
            var p = p
            p.layer = p.layer % 2
            p.feature = 20 + p.feature % 5
            return p
        }
        for p in later { spool.append(p) }
        let runs = try OrderPhase(order: .hilbert).run(&spool)
        #expect(try merged(runs, zooms: 0...8) == expected(kept + later, order: .hilbert))
    }

    @Test func aRollbackWithoutASpillSinceTheMarkTrimsTheHeldPieces() throws {
        var spool = PieceSpool(order: .zxy)
        let first = pieces(100)
        for p in first { spool.append(p) }
        let mark = spool.mark()
        for p in pieces(100, seed: 3) { spool.append(p) }
        spool.rollback(to: mark, recordCounts: [50, 50, 50])
        let runs = try OrderPhase(order: .zxy).run(&spool)
        #expect(try merged(runs, zooms: 0...8) == expected(first, order: .zxy))
    }

    @Test(arguments: [
        ("512M", 512 << 20), ("2G", 2 << 30), ("1.5GiB", 3 << 29), ("300mb", 300 << 20), ("65536", 65536),
        ("64k", 65536), (" 1 g ", 1 << 30),
    ])
    func memoryBudgetsParse(text: String, bytes: Int) {
        #expect(MemoryBudget.parse(text) == bytes)
    }

    @Test(arguments: ["", "abc", "12Q", "-1G", "1K", "2T", "nan", "1e400"])
    func badMemoryBudgetsAreRefused(text: String) {
        #expect(MemoryBudget.parse(text) == nil)
    }

    @Test func theCheckBeforeTheRunRefusesAFolderWithoutRoom() throws {
        let dir = try TemporaryDirectory()
        let place = ScratchPlace(folder: dir.path, outputName: "x.pmtiles")
        // Small inputs that fit the budget need no scratch at all.
        try place.checkBeforeRun(shpBytes: 1000, zooms: 5, budget: 256 << 20)
        #expect(throws: SpillError.self) {
            try place.checkBeforeRun(shpBytes: 1 << 50, zooms: 15, budget: 256 << 20)
        }
        do {
            try place.checkBeforeRun(shpBytes: 1 << 50, zooms: 15, budget: 256 << 20)
        } catch {
            #expect(error.exitCode == .ioError)
            #expect(error.description.contains(dir.path) && error.description.contains("needed"))
        }
        let missing = ScratchPlace(folder: dir.file("nope"), outputName: "x.pmtiles")
        do {
            try missing.checkBeforeRun(shpBytes: 10 << 20, zooms: 9, budget: 64 << 10)
            Issue.record("a missing scratch folder was accepted")
        } catch {
            #expect(error.exitCode == .cantCreate)
        }
    }

    @Test func aConversionGivesTheSameBytesWithAnyBudgetAndThreadCount() throws {
        let dir = try TemporaryDirectory()
        let inputs = ["avdelningar", "vagar", "fornminnen"].map {
            RepositoryPaths.sampleForest.appendingPathComponent("\($0).shp").path
        }
        var digests: Set<Data> = []
        for (budget, threads) in [(256 << 20, 1), (64 << 10, 1), (64 << 10, 2), (200 << 10, 2)] {
            let out = dir.file("out-\(budget)-\(threads).pmtiles")
            let report = try convert(inputs, to: out, zooms: 8...13, threads: threads) {
                $0.memoryBudget = budget
                $0.name = "same"
            }
            #expect((report.sort?.spilledRuns ?? -1) > 0 || budget > 1 << 20)
            #expect((report.sort?.tileScratchBytes ?? -1) > 0 || budget > 1 << 20)
            // At the smallest budget the feature records go to the scratch file too.
            #expect((report.sort?.recordScratchBytes ?? -1) > 0 || budget > 64 << 10)
            #expect((report.sort?.recordScratchBytes ?? -1) == 0 || budget < 1 << 20)
            #expect(report.peakRSSBytes ?? 0 > 0)
            digests.insert(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(digests.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).allSatisfy { $0.hasPrefix("out-") })
    }

    /// The encode phase streams a spilled zoom in batches of 16 pieces at the smallest budget and does thinning
    /// rounds again, over the batches it held (16 KiB of them at that budget, 40 KiB at 160 KiB, the whole zoom at
    /// 256 MiB) and then the stream, discarding tiles it already spilled: the same bytes as one zoom in memory,
    /// with tile limits (several rounds), `max-points`, thinning by size, coalescing and small-feature squares.
    @Test(arguments: ["limits", "max-points", "smallest", "coalesce"])
    func thinningGivesTheSameBytesWhenAZoomIsStreamedInBatches(_ variant: String) throws {
        let dir = try TemporaryDirectory()
        let inputs = ["avdelningar", "vagar", "fornminnen", "hansyn"].map {
            RepositoryPaths.sampleForest.appendingPathComponent("\($0).shp").path
        }
        var digests: Set<Data> = []
        var dropped: Set<String> = []
        for (budget, threads) in [(256 << 20, 1), (64 << 10, 1), (64 << 10, 2), (160 << 10, 2)] {
            let out = dir.file("out-\(budget)-\(threads).pmtiles")
            let report = try convert(inputs, to: out, zooms: 6...13, threads: threads) {
                $0.memoryBudget = budget
                $0.name = "same"
                $0.maxTileFeatures = 25
                $0.maxTileBytes = 4000
                if variant == "max-points" { $0.maxPoints = [(layer: "fornminnen", limit: 2)] }
                if variant == "smallest" { $0.thinning = ThinningOptions(mode: .smallest) }
                if variant == "coalesce" { $0.thinning.coalesce = true }
            }
            #expect((report.sort?.tileScratchBytes ?? -1) > 0 || budget > 1 << 20)
            #expect((report.sort?.recordScratchBytes ?? -1) > 0 || budget > 64 << 10)
            dropped.insert("\(report.zooms.map { "\($0.zoom):\($0.dropped.sorted { $0.key < $1.key })" })")
            digests.insert(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(EncodeSettings.batchPieces(budget: 64 << 10) == 16)
        #expect(EncodeSettings.keepBytes(budget: 64 << 10) == 16 << 10)
        #expect(digests.count == 1, "\(variant): package bytes differ between budgets or thread counts")
        #expect(dropped.count == 1, "\(variant): the dropped counts differ: \(dropped)")
        #expect(dropped.first?.contains("dropped_by") == true, "\(variant): nothing was thinned: \(dropped)")
    }
}
