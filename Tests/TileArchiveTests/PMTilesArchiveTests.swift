import Gzip
import KartpackCore
import Testing
@testable import PMTiles
@testable import TileArchive

@Suite struct PMTilesArchiveTests {
    /// Writes tiles given by key in Hilbert order.
    func writeArchive(_ path: String, _ tiles: [(TileCoordinate, [UInt8])], overwrite: Bool = false) throws
        -> ArchiveSummary
    {
        let writer = try PMTilesWriter(path: path, overwrite: overwrite)
        let sorted = tiles.sorted { PMTilesTileID.id($0.0)! < PMTilesTileID.id($1.0)! }
        for (k, data) in sorted { try writer.write(z: k.z, x: k.x, y: k.y, data: data) }
        return try writer.finish(metadata: sampleMetadata())
    }

    @Test func writesAndReadsBackEveryTile() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/tiles.pmtiles"
            var tiles: [(TileCoordinate, [UInt8])] = []
            for z in 0...3 {
                for x in 0..<(1 << z) {
                    for y in 0..<(1 << z) where (x + y + z) % 3 != 0 || z == 0 {
                        tiles.append(
                            (TileCoordinate(z: z, x: x, y: y), try Gzip.compress(sampleMVT(name: "\(z)/\(x)/\(y)"))))
                    }
                }
            }
            let summary = try writeArchive(path, tiles)
            #expect(summary.addressedTiles == tiles.count)
            #expect(summary.tileContents == tiles.count)
            #expect(summary.minZoom == 0 && summary.maxZoom == 3)
            #expect(try listing(dir) == ["tiles.pmtiles"])

            let reader = try PMTilesReader(path: path)
            let h = reader.header
            #expect(h.clustered)
            #expect(h.internalCompression == .gzip && h.tileCompression == .gzip && h.tileType == .mvt)
            #expect(h.addressedTiles == UInt64(tiles.count))
            #expect(h.rootOffset == 127)
            #expect(h.minZoom == 0 && h.maxZoom == 3)
            #expect(h.minLonE7 == -1_800_000_000 && h.maxLonE7 == 1_800_000_000)
            #expect(h.maxLatE7 == 850_511_288)
            #expect(reader.fileSize == summary.fileBytes)
            for (k, data) in tiles {
                #expect(try reader.tile(z: k.z, x: k.x, y: k.y) == data, "\(k)")
            }
            #expect(try reader.tile(z: 3, x: 0, y: 0) == nil)
            #expect(try reader.tile(z: 9, x: 0, y: 0) == nil)
            #expect(try reader.tile(z: 40, x: 0, y: 0) == nil)
            let entries = try reader.entries()
            #expect(entries.map(\.key) == tiles.map(\.0).sorted { PMTilesTileID.id($0)! < PMTilesTileID.id($1)! })
            #expect(entries.first?.entry.offset == 0)
            for e in entries { #expect(try Gzip.decompress(reader.data(for: e), maxOutput: 1000).count > 10) }
        }
    }

    @Test func storesIdenticalBlobsOnceWithRunLengths() throws {
        try withTemporaryDirectory { dir in
            // The spec's worked example: blobs A B C C C B D over TileIDs 0...6.
            let a = [UInt8](repeating: 1, count: 100)
            let b = [UInt8](repeating: 2, count: 80)
            let c = [UInt8](repeating: 3, count: 80)
            let d = [UInt8](repeating: 4, count: 300)
            let blobs = [a, b, c, c, c, b, d]
            let path = dir + "/dedup.pmtiles"
            let writer = try PMTilesWriter(path: path)
            #expect(writer.tileOrder == .hilbert && writer.deduplicates)
            for (id, blob) in blobs.enumerated() {
                let k = PMTilesTileID.coordinate(UInt64(id))!
                try writer.write(z: k.z, x: k.x, y: k.y, data: blob)
            }
            let summary = try writer.finish(metadata: sampleMetadata())
            #expect(summary.addressedTiles == 7 && summary.tileEntries == 5 && summary.tileContents == 4)
            let reader = try PMTilesReader(path: path)
            #expect(reader.header.addressedTiles == 7)
            #expect(reader.header.tileEntries == 5)
            #expect(reader.header.tileContents == 4)
            #expect(reader.header.tileDataLength == 560)
            #expect(try reader.entries().map(\.entry) == PMTilesDirectoryTests.workedExample)
            for (id, blob) in blobs.enumerated() {
                let k = PMTilesTileID.coordinate(UInt64(id))!
                #expect(try reader.tile(z: k.z, x: k.x, y: k.y) == blob)
            }
        }
    }

    @Test func distinguishesBlobsWithEqualHashesByBytes() throws {
        // Force a collision path by writing many distinct blobs; every one must read back as written.
        try withTemporaryDirectory { dir in
            let path = dir + "/many.pmtiles"
            let writer = try PMTilesWriter(path: path)
            var written: [(TileCoordinate, [UInt8])] = []
            for id in 0..<2000 {
                let k = PMTilesTileID.coordinate(UInt64(id))!
                let blob = [UInt8(id & 0xff), UInt8(id >> 8), UInt8(id % 3)]
                try writer.write(z: k.z, x: k.x, y: k.y, data: blob)
                written.append((k, blob))
            }
            _ = try writer.finish(metadata: sampleMetadata())
            let reader = try PMTilesReader(path: path)
            #expect(reader.header.tileContents == 2000)
            for (k, blob) in written { #expect(try reader.tile(z: k.z, x: k.x, y: k.y) == blob) }
        }
    }

    @Test func splitsIntoLeavesAndReadsBackThroughThem() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/leaves.pmtiles"
            let writer = try PMTilesWriter(path: path, temporaryDirectory: dir)
            var rng = SplitMix(seed: 11)
            var written: [(TileCoordinate, [UInt8])] = []
            var id = PMTilesTileID.base(10)
            for _ in 0..<30_000 {
                id += UInt64.random(in: 1...6, using: &rng)
                let k = PMTilesTileID.coordinate(id)!
                let blob = (0..<Int.random(in: 1...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                try writer.write(z: k.z, x: k.x, y: k.y, data: blob)
                written.append((k, blob))
            }
            _ = try writer.finish(metadata: sampleMetadata())
            let reader = try PMTilesReader(path: path)
            #expect(reader.header.leafLength > 0)
            #expect(reader.header.rootLength + 127 <= 16_384)
            #expect(reader.header.addressedTiles == 30_000)
            let entries = try reader.entries()
            #expect(entries.count == 30_000)
            #expect(entries.map(\.key) == written.map(\.0))
            for (k, blob) in written.enumerated() where k % 97 == 0 {
                #expect(try reader.tile(z: blob.0.z, x: blob.0.x, y: blob.0.y) == blob.1)
            }
        }
    }

    @Test func rejectsOutOfOrderDuplicateAndInvalidTiles() throws {
        try withTemporaryDirectory { dir in
            let writer = try PMTilesWriter(path: dir + "/order.pmtiles")
            try writer.write(z: 1, x: 1, y: 1, data: [1])  // TileID 3
            #expect(throws: TileArchiveError.self) { try writer.write(z: 1, x: 0, y: 1, data: [2]) }  // TileID 2
            #expect(throws: TileArchiveError.self) { try writer.write(z: 1, x: 1, y: 1, data: [2]) }
            do throws(TileArchiveError) {
                try writer.write(z: 0, x: 0, y: 0, data: [2])
                Issue.record("a lower TileID was accepted")
            } catch {
                guard case .outOfOrder(let previous, let next, .hilbert) = error else {
                    Issue.record("wrong error \(error)")
                    return
                }
                #expect(previous == TileCoordinate(z: 1, x: 1, y: 1) && next == TileCoordinate(z: 0, x: 0, y: 0))
                #expect(error.exitCode == .software)
            }
            #expect(throws: TileArchiveError.self) { try writer.write(z: 2, x: 4, y: 0, data: [2]) }
            #expect(throws: TileArchiveError.self) { try writer.write(z: 2, x: 1, y: 0, data: []) }
            try writer.write(z: 1, x: 1, y: 0, data: [3])  // TileID 4 is still accepted
            writer.abort()
            #expect(try listing(dir).isEmpty)
            #expect(throws: TileArchiveError.self) { try writer.write(z: 2, x: 0, y: 0, data: [4]) }
        }
    }

    @Test func refusesToOverwriteUnlessAsked() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/exists.pmtiles"
            try writeBytes(Array("old".utf8), to: path)
            do throws(TileArchiveError) {
                _ = try PMTilesWriter(path: path)
                Issue.record("an existing target was accepted")
            } catch {
                #expect(error.exitCode == .cantCreate)
                guard case .targetExists = error else {
                    Issue.record("wrong error \(error)")
                    return
                }
            }
            #expect(try readBytes(path) == Array("old".utf8))
            _ = try writeArchive(path, [(TileCoordinate(z: 0, x: 0, y: 0), [1, 2, 3])], overwrite: true)
            #expect(try PMTilesReader(path: path).tile(z: 0, x: 0, y: 0) == [1, 2, 3])
            #expect(try listing(dir) == ["exists.pmtiles"])
        }
    }

    @Test func refusesATargetThatAppearsWhileWriting() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/race.pmtiles"
            let writer = try PMTilesWriter(path: path)
            try writer.write(z: 0, x: 0, y: 0, data: [9])
            try writeBytes(Array("someone else".utf8), to: path)
            #expect(throws: TileArchiveError.self) { try writer.finish(metadata: sampleMetadata()) }
            #expect(try readBytes(path) == Array("someone else".utf8))
            #expect(try listing(dir) == ["race.pmtiles"])
        }
    }

    @Test func abortLeavesNoTempFileAndTheOldFileIntact() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/keep.pmtiles"
            try writeBytes(Array("previous package".utf8), to: path)
            let writer = try PMTilesWriter(path: path, overwrite: true)
            try writer.write(z: 0, x: 0, y: 0, data: [1])
            #expect(try listing(dir).count == 2)  // the target and the output temp file
            writer.abort()
            writer.abort()
            #expect(try listing(dir) == ["keep.pmtiles"])
            #expect(try readBytes(path) == Array("previous package".utf8))
            #expect(throws: TileArchiveError.self) { try writer.finish(metadata: sampleMetadata()) }
        }
    }

    @Test func failedFinishLeavesNoTempFile() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/bad.pmtiles"
            let empty = try PMTilesWriter(path: path)
            #expect(throws: TileArchiveError.self) { try empty.finish(metadata: sampleMetadata()) }
            var meta = sampleMetadata()
            meta.extra = [("name", .string("collides"))]
            let writer = try PMTilesWriter(path: path)
            try writer.write(z: 0, x: 0, y: 0, data: [1])
            #expect(throws: TileArchiveError.self) { try writer.finish(metadata: meta) }
            #expect(try listing(dir).isEmpty)
        }
    }

    @Test func cannotCreateInAMissingFolder() throws {
        try withTemporaryDirectory { dir in
            do throws(TileArchiveError) {
                _ = try PMTilesWriter(path: dir + "/missing/x.pmtiles")
                Issue.record("a missing folder was accepted")
            } catch {
                #expect(error.exitCode == .cantCreate)
            }
        }
    }

    @Test func writesSortedDeterministicMetadata() throws {
        try withTemporaryDirectory { dir in
            let first = dir + "/a.pmtiles"
            let second = dir + "/b.pmtiles"
            let tiles = [(TileCoordinate(z: 5, x: 17, y: 10), try Gzip.compress(sampleMVT()))]
            _ = try writeArchive(first, tiles)
            _ = try writeArchive(second, tiles)
            #expect(try readBytes(first) == readBytes(second))
            let reader = try PMTilesReader(path: first)
            let text = try reader.metadataText()
            #expect(
                text == """
                    {"attribution":"© test","description":"unit test","generator":"kartpack-tests",\
                    "kartpack_summary":{"features":1,"skipped":{}},"name":"Test tiles","type":"overlay",\
                    "vector_layers":[{"fields":{"name":"String","area":"Number"},"id":"points"}],"version":"1.0.0"}
                    """)
            let json = try reader.metadata()
            #expect(json["name"]?.stringValue == "Test tiles")
            #expect(json["vector_layers"]?.arrayValue?.first?["id"]?.stringValue == "points")
            // Bounds and center come from the single z5 tile.
            let b = reader.header.bounds
            #expect(abs(b.west - 11.25) < 1e-6 && abs(b.east - 22.5) < 1e-6)
            #expect(reader.header.center.zoom == 5)
        }
    }

    @Test func readersRejectGarbageAndTruncatedFiles() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/good.pmtiles"
            var tiles: [(TileCoordinate, [UInt8])] = []
            for id in 0..<300 {
                tiles.append((PMTilesTileID.coordinate(UInt64(id * 2))!, [UInt8(id & 0xff), 1, 2, 3]))
            }
            _ = try writeArchive(path, tiles)
            let good = try readBytes(path)
            let probe = dir + "/probe.pmtiles"

            func exercise() -> Bool {
                do throws(TileArchiveError) {
                    let r = try PMTilesReader(path: probe)
                    _ = try r.metadata()
                    _ = try r.entries()
                    _ = try r.tile(z: 4, x: 3, y: 3)
                    return true
                } catch {
                    #expect(error.exitCode == .dataError || error.exitCode == .noInput, "\(error)")
                    return false
                }
            }

            for n in [0, 1, 7, 50, 126, 127, 128, 140, good.count / 2, good.count - 1] {
                try writeBytes(Array(good[..<n]), to: probe)
                #expect(!exercise(), "prefix of \(n) bytes was accepted")
            }
            try writeBytes(Array("definitely not a tile archive, just some text".utf8), to: probe)
            #expect(!exercise())
            var wrongVersion = good
            wrongVersion[7] = 2
            try writeBytes(wrongVersion, to: probe)
            #expect(!exercise())
            var rng = SplitMix(seed: 77)
            for _ in 0..<300 {
                var bytes = good
                for _ in 0..<Int.random(in: 1...6, using: &rng) {
                    bytes[Int.random(in: 0..<min(bytes.count, 400), using: &rng)] = UInt8.random(
                        in: 0...255, using: &rng)
                }
                try writeBytes(bytes, to: probe)
                _ = exercise()
            }
            #expect(throws: TileArchiveError.self) { try PMTilesReader(path: dir + "/none.pmtiles") }
            #expect(throws: TileArchiveError.self) { try PMTilesReader(path: dir) }
        }
    }
}
