import Foundation
import KartpackCore
import KartpackTestSupport
import Testing
import TileArchive
import VectorTile

@testable import ConvertEngine
@testable import MallocTuning

/// What else is bounded besides the sort of tile pieces (issue 10): feature records coded compactly
/// (`RecordTable`), and finished tiles spilled to the scratch folder until they are published (`EncodedTiles`).
@Suite struct BoundedMemoryTests {
    private func record(_ i: Int) -> FeatureRecord {
        var p = Properties()
        p.append("AVDNR", .int(Int64(i)))
        p.append("name", .string(i % 3 == 0 ? "Hänsyn: kantzon mot myr \(i)" : "Gran"))
        p.append("neg", .int(-Int64(i) * 1_000_003))
        p.append("big", .uint(UInt64.max - UInt64(i)))
        p.append("d", .double(i % 4 == 0 ? -0.0 : Double(i) / 7))
        p.append("b", .bool(i % 2 == 0))
        if i % 5 == 0 { p.append("gone", .null) }
        // Canonically equivalent keys that differ in bytes stay two keys (MVT compares keys byte for byte).
        p.append(i % 2 == 0 ? "caf\u{E9}" : "cafe\u{301}", .string(""))
        return FeatureRecord(
            id: i % 7 == 0 ? nil : UInt64(i) * 977, properties: p, rank: FeatureRank.rank(layer: 1, feature: i),
            classes: i % 2 == 0 ? [nil, "low", "high \(i)"] : [],
            flags: i % 3 == 0 ? [[], ["wet"], ["wet", "old"]] : [],
            classBaseZoom: 6 + i % 3)
    }

    private func same(_ a: FeatureRecord, _ b: FeatureRecord) -> Bool {
        a.id == b.id && a.rank == b.rank && a.classes == b.classes && a.flags == b.flags
            && a.classBaseZoom == b.classBaseZoom && a.properties.keys.count == b.properties.keys.count
            && zip(a.properties.keys, b.properties.keys).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
            && zip(a.properties.values, b.properties.values).allSatisfy { x, y in
                if case .double(let u) = x, case .double(let v) = y { return u.bitPattern == v.bitPattern }
                return x == y
            }
            && (6...9).allSatisfy { a.properties(atZoom: $0) == b.properties(atZoom: $0) }
    }

    @Test func recordsRoundTripAcrossChunksAndTakeAFractionOfTheirValueSize() throws {
        var table = RecordTable()
        // Enough records for many 64 KiB chunks.
        let n = 30_000
        for i in 0..<n { table.append(record(i)) }
        #expect(table.count == n)
        for i in stride(from: 0, to: n, by: 37) + [n - 1] {
            #expect(same((try table.record(i)).record, record(i)), "record \(i)")
            let stored = try table.record(i)
            #expect(table.rank(i) == record(i).rank && stored.rank == record(i).rank && stored.id == record(i).id)
        }
        #expect(table.heldBytes > 1 << 20)
        #expect(table.heldBytes < n * 120, "\(table.heldBytes) bytes for \(n) records")
    }

    @Test func readersShareTheSpilledChunksReadLately() throws {
        let dir = try TemporaryDirectory()
        let spill = RecordSpill(scratch: ScratchPlace(folder: dir.path, outputName: "x.pmtiles"), heldLimit: 16 << 10)
        var table = RecordTable(spill: spill)
        let n = 10000
        for i in 0..<n { table.append(record(i)) }
        try table.spillIfOverLimit()
        // Two tiles' records in the same spilled chunks: the second reader reads none of them again.
        var first = table.reader()
        for i in 0..<400 { #expect(same((try first.record(i)).record, record(i))) }
        let reads = table.spilledChunkReads
        #expect(reads > 1 && reads <= RecentChunks.capacity, "\(reads) chunks read")
        var second = table.reader()
        for i in stride(from: 0, to: 400, by: 7) { #expect(same((try second.record(i)).record, record(i))) }
        #expect(table.spilledChunkReads == reads)
        // Past the chunks kept, the oldest are read again, with the same bytes.
        var far = table.reader()
        for i in 0..<(n - 200) { _ = try far.record(i) }
        let again = table.spilledChunkReads
        var back = table.reader()
        #expect(same((try back.record(0)).record, record(0)))
        #expect(table.spilledChunkReads == again + 1)
    }

    @Test func recordsPastTheSpillLimitAreReadBackFromTheScratchFile() throws {
        let dir = try TemporaryDirectory()
        let spill = RecordSpill(scratch: ScratchPlace(folder: dir.path, outputName: "x.pmtiles"), heldLimit: 16 << 10)
        var table = RecordTable(spill: spill)
        let n = 3000
        var beforeSpill: RecordTable?
        for i in 0..<n {
            table.append(record(i))
            if i == 500 { beforeSpill = table }
            if i % 100 == 0 { try table.spillIfOverLimit() }
        }
        try table.spillIfOverLimit()
        #expect(table.spilledBytes > 200 << 10, "\(table.spilledBytes) bytes spilled")
        #expect(spill.scratchBytes == UInt64(table.spilledBytes))
        // What stays: the chunk being filled (16 KiB under this limit), places and ranks (arrays grow by doubling).
        #expect(table.heldBytes <= (16 << 10) + 2 * n * 16, "\(table.heldBytes) bytes held")
        // The scratch file has no name: nothing is left in the folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        for i in stride(from: 0, to: n, by: 13) + [n - 1] {
            #expect(same((try table.record(i)).record, record(i)), "record \(i)")
        }
        var reader = table.reader()
        for i in 0..<n where !same((try reader.record(i)).record, record(i)) {
            Issue.record("record \(i) read in order differs")
            break
        }
        // Reading backwards loads chunks again, with the same result.
        for i in stride(from: n - 1, through: 0, by: -251) {
            #expect(same((try reader.record(i)).record, record(i)), "record \(i) read backwards")
        }
        // A copy taken between two spills reads its records, spilled or held, whatever the table did since.
        let copy = try #require(beforeSpill)
        #expect(copy.count == 501 && copy.spilledBytes > 0 && copy.spilledBytes < table.spilledBytes)
        #expect(same((try copy.record(0)).record, record(0)))
        #expect(same((try copy.record(500)).record, record(500)))
        // Truncating into a spilled chunk forgets the tail; appends go on in a new chunk.
        table.truncate(to: 1234)
        table.append(record(77_777))
        #expect(table.count == 1235)
        #expect(same((try table.record(1233)).record, record(1233)))
        #expect(same((try table.record(1234)).record, record(77_777)))
        #expect(table.rank(1234) == record(77_777).rank)
    }

    @Test func aTableWithoutASpillNeverSpills() throws {
        var table = RecordTable((0..<3000).map(record))
        try table.spillIfOverLimit()
        #expect(table.spilledBytes == 0)
        #expect(same((try table.record(2999)).record, record(2999)))
    }

    @Test func truncatingForgetsTheTailAndCopiesStayApart() throws {
        var table = RecordTable((0..<5000).map(record))
        let copy = table
        table.truncate(to: 1234)
        #expect(table.count == 1234 && copy.count == 5000)
        table.append(record(99_999))
        #expect(same((try table.record(1234)).record, record(99_999)))
        #expect(same((try copy.record(1234)).record, record(1234)))
        table.truncate(to: 0)
        #expect(table.isEmpty)
        table.append(record(3))
        #expect(same((try table.record(0)).record, record(3)))
        // A stored record appended to another table (the `_labels` copy) keeps everything but what is changed.
        var labels = RecordTable()
        var label = try copy.record(42)
        label.rank = 7
        labels.append(label)
        var expected = record(42)
        expected.rank = 7
        #expect(same((try labels.record(0)).record, expected))
    }

    @Test func aRollbackRestoresTheRecordsOfTheCheckpoint() throws {
        var tiled = TiledLayers()
        let a = tiled.output(named: "a")
        for i in 0..<10 { tiled.outputs[a].records.append(record(i)) }
        let mark = tiled.checkpoint()
        for i in 10..<30 { tiled.outputs[a].records.append(record(i)) }
        let b = tiled.output(named: "b")
        tiled.outputs[b].records.append(record(5))
        tiled.rollback(to: mark)
        #expect(tiled.outputs.count == 1 && tiled.outputs[0].records.count == 10)
        #expect(same((try tiled.outputs[0].records.record(9)).record, record(9)))
    }

    private func tiles(zoom z: Int, count: Int) -> [EncodedTile] {
        (0..<count).map { i in
            EncodedTile(
                tile: TileCoordinate(z: z, x: i % (1 << z), y: i / (1 << z)),
                bytes: (0..<(1 + (i * 7919 + z) % 3000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ i &+ z) },
                features: i)
        }
    }

    private func readBack(_ store: EncodedTiles, zooms: ClosedRange<Int>) throws -> [String] {
        var out: [String] = []
        for z in zooms {
            try store.forEachTile(zoom: z) { t, bytes in out.append("\(t) \(bytes.count) \(bytes.hashValue)") }
        }
        return out
    }

    @Test func spilledTilesReadBackAsHeldOnesInZoomOrder() throws {
        let dir = try TemporaryDirectory()
        let held = EncodedTiles()
        let spilled = EncodedTiles(
            scratch: ScratchPlace(folder: dir.path, outputName: "x.pmtiles"), holdBytes: 20_000)
        // Added from the max zoom down, as the encode phase does; enough bytes for several 1 MiB blocks.
        for z in (3...8).reversed() {
            try held.add(tiles(zoom: z, count: z == 8 ? 1500 : 40), zoom: z)
            try spilled.add(tiles(zoom: z, count: z == 8 ? 1500 : 40), zoom: z)
        }
        #expect(held.scratchBytes == 0)
        #expect(spilled.scratchBytes > 2 << 20)
        #expect(spilled.count == held.count && held.count == 1500 + 5 * 40)
        #expect(try readBack(spilled, zooms: 0...9) == readBack(held, zooms: 0...9))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        spilled.close()
    }

    /// A zoom comes in batches, some spilled and some still held, and a thinning round that is done again
    /// discards the zoom: its scratch bytes are given back and the tiles read back as if added once.
    @Test func aZoomAddedInBatchesCanBeDiscardedAndAddedAgain() throws {
        let dir = try TemporaryDirectory()
        let held = EncodedTiles()
        let spilled = EncodedTiles(scratch: ScratchPlace(folder: dir.path, outputName: "x.pmtiles"), holdBytes: 20_000)
        let z8 = tiles(zoom: 8, count: 600)
        let z7 = tiles(zoom: 7, count: 300)
        try held.add(z8, zoom: 8)
        try held.add(z7, zoom: 7)
        try spilled.add(Array(z8[..<250]), zoom: 8)
        try spilled.add(Array(z8[250...]), zoom: 8)
        let afterZ8 = spilled.scratchBytes
        // A first round of zoom 7: spilled in part, then discarded.
        try spilled.add(Array(z7[..<200]), zoom: 7)
        #expect(spilled.scratchBytes > afterZ8)
        try spilled.add(tiles(zoom: 7, count: 7), zoom: 7)
        try spilled.discard(zoom: 7)
        #expect(spilled.scratchBytes <= afterZ8, "the discarded round's bytes are given back")
        #expect(try readBack(spilled, zooms: 7...7).isEmpty)
        // The round again, in three batches: the first spills, the last stays held.
        try spilled.add(Array(z7[..<100]), zoom: 7)
        try spilled.add(Array(z7[100..<290]), zoom: 7)
        try spilled.add(Array(z7[290...]), zoom: 7)
        #expect(spilled.count == held.count)
        #expect(try readBack(spilled, zooms: 0...9) == readBack(held, zooms: 0...9))
        spilled.close()
    }

    /// Spilled and held tiles of zooms 3–8 in archive order, with repeated blobs and one tile over a batch's bytes.
    private func publishable(in dir: TemporaryDirectory, misplaced: Bool = false) throws -> EncodedTiles {
        let store = EncodedTiles(scratch: ScratchPlace(folder: dir.path, outputName: "x.pmtiles"), holdBytes: 20_000)
        for z in (3...8).reversed() {
            var made = tiles(zoom: z, count: z == 8 ? 1500 : 40)
            for i in made.indices where i % 5 == 0 { made[i].bytes = [1, 2, 3, UInt8(i % 3)] }
            if z == 4 { made[1].bytes = [UInt8](repeating: 9, count: 3 << 20) }
            made.sort { PMTilesTileID.id($0.tile)! < PMTilesTileID.id($1.tile)! }
            if misplaced, z == 8 { made.swapAt(1000, 1001) }
            try store.add(made, zoom: z)
        }
        return store
    }

    /// The package written with the tiles read and hashed ahead on another thread (`TilePrefetch`) is the one
    /// written on one thread; a writer's error mid-way stops the reader and is what the publish throws.
    @Test func tilesReadAheadOnAnotherThreadMakeThePackageOfOneThread() throws {
        let dir = try TemporaryDirectory()
        var packages: [[UInt8]] = []
        for threads in [1, 2, 1, 2] {
            let folder = dir.path + "/\(packages.count)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let misplaced = packages.count >= 2
            let tiles = try publishable(in: dir, misplaced: misplaced)
            defer { tiles.close() }
            let publisher = PublishPhase(
                settings: PublishSettings(
                    options: ConvertOptions(inputs: [], output: folder + "/p.pmtiles", format: .pmtiles)))
            func publish() throws {
                _ = try publisher.publish(
                    tiles, zooms: 0...9, metadata: ArchiveMetadata(name: "p", minZoom: 3, maxZoom: 8),
                    progress: nil, threads: threads, checkCancelled: {})
            }
            if misplaced {
                #expect(throws: TileArchiveError.self) { try publish() }
                #expect(!FileManager.default.fileExists(atPath: folder + "/p.pmtiles"))
                packages.append([])
            } else {
                try publish()
                packages.append(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/p.pmtiles"))))
            }
        }
        #expect(packages[0].count > 3 << 20)
        #expect(packages[0] == packages[1])
    }

    @Test func tilesUnderTheHoldStayInMemory() throws {
        let dir = try TemporaryDirectory()
        let store = EncodedTiles(scratch: ScratchPlace(folder: dir.path, outputName: "x.pmtiles"), holdBytes: 1 << 30)
        try store.add(tiles(zoom: 5, count: 100), zoom: 5)
        #expect(store.scratchBytes == 0)
        #expect(try readBack(store, zooms: 5...5).count == 100)
    }

    /// The heap tuning is glibc's here: a live block shows in `bytesInUse`, and configuring and trimming leave live
    /// memory alone (the sizes are far above anything the other tests allocate at once).
    @Test func theHeapTuningCountsLiveBlocksAndKeepsThem() {
        #if os(Linux)
            ProcessHeap.configure(threads: 2)
            let before = ProcessHeap.bytesInUse
            var blocks = (0..<64).map { i in [UInt8](repeating: UInt8(i), count: 4 << 20) }
            ProcessHeap.giveBackFreePages()
            #expect(ProcessHeap.bytesInUse >= before + (192 << 20))
            #expect(blocks.enumerated().allSatisfy { i, b in b.count == 4 << 20 && b[12345] == UInt8(i) })
            blocks = []
            ProcessHeap.giveBackFreePages()
            #expect(blocks.isEmpty && ProcessHeap.bytesInUse > 0)
        #endif
    }

    /// Growing thread arenas ahead (`ProcessHeap.growArenas`) runs one thread per arena to its end and leaves the
    /// process's live blocks alone (what it held is freed: `bytesInUse` is not checked, the suite's other tests
    /// allocate meanwhile).
    @Test func growingArenasAheadLeavesLiveBlocks() {
        #if os(Linux)
            let live = [UInt8](repeating: 7, count: 1 << 20)
            #expect(ProcessHeap.growArenas(3) == 3)
            #expect(live.allSatisfy { $0 == 7 })
        #else
            #expect(ProcessHeap.growArenas(3) == 0)
        #endif
    }
}
