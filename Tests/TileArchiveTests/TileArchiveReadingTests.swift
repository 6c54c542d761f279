import Gzip
import KartpackCore
import Testing
import TileArchive

@Suite struct TileArchiveReadingTests {
    /// Writes the same two tiles (gzip) into a package at `path`.
    func write(_ path: String) throws {
        let writer: any TileArchiveWriting =
            ArchiveFormat.from(path: path) == .mbtiles ? try MBTilesWriter(path: path) : try PMTilesWriter(path: path)
        for (z, x, y, name) in [(0, 0, 0, "a"), (1, 1, 0, "b")] {
            try writer.write(z: z, x: x, y: y, data: try Gzip.compress(sampleMVT(name: name)))
        }
        _ = try writer.finish(metadata: sampleMetadata())
    }

    @Test(arguments: ["p.pmtiles", "m.mbtiles"]) func opensEitherFormatAndDecompressesTiles(name: String) throws {
        try withTemporaryDirectory { dir in
            try write(dir + "/" + name)
            // The same content under a name without a known extension is recognised by its bytes.
            try writeBytes(try readBytes(dir + "/" + name), to: dir + "/package.bin")
            for path in [dir + "/" + name, dir + "/package.bin"] {
                let archive = try openTileArchive(path: path)
                #expect(archive.format == ArchiveFormat.from(path: name))
                #expect(try archive.tile(TileCoordinate(z: 0, x: 0, y: 0)) == sampleMVT(name: "a"))
                #expect(try archive.tile(TileCoordinate(z: 1, x: 1, y: 0)) == sampleMVT(name: "b"))
                #expect(try archive.tile(TileCoordinate(z: 1, x: 0, y: 0)) == nil)
                #expect(try archive.storedTile(TileCoordinate(z: 0, x: 0, y: 0))?.starts(with: [0x1F, 0x8B]) == true)
                var seen: [TileCoordinate] = []
                try archive.forEachStoredTile { key, data in
                    seen.append(key)
                    return data.starts(with: [0x1F, 0x8B])
                }
                #expect(seen == [TileCoordinate(z: 0, x: 0, y: 0), TileCoordinate(z: 1, x: 1, y: 0)])
                let meta = try archive.metadata()
                #expect(meta["name"]?.stringValue == sampleMetadata().name)
                #expect(meta["vector_layers"]?.arrayValue != nil)
            }
        }
    }

    @Test func pmtilesHeaderValuesAreOfferedAsMetadata() throws {
        try withTemporaryDirectory { dir in
            try write(dir + "/p.pmtiles")
            let archive = try openTileArchive(path: dir + "/p.pmtiles")
            #expect(archive.headerMetadata.map(\.key) == ["minzoom", "maxzoom", "bounds", "center"])
            #expect(archive.headerMetadata.first?.value == .int(0))
            let mb = dir + "/m.mbtiles"
            try write(mb)
            #expect(try openTileArchive(path: mb).headerMetadata.isEmpty)
        }
    }

    @Test func missingAndGarbageFilesAreErrorsNotTraps() throws {
        try withTemporaryDirectory { dir in
            #expect(throws: TileArchiveError.self) { try openTileArchive(path: dir + "/none.pmtiles") }
            try writeBytes(Array(repeating: 0x41, count: 300), to: dir + "/junk.bin")
            #expect(throws: TileArchiveError.self) { try openTileArchive(path: dir + "/junk.bin") }
        }
    }

    @Test func tileCompressionRoundTripsAndRefusesWhatItCannotRead() throws {
        let raw = sampleMVT()
        #expect(
            try TileCompression.gzip.decompress(TileCompression.gzip.compress(raw), maxBytes: 1 << 20, path: "p") == raw
        )
        #expect(try TileCompression.none.compress(raw) == raw)
        // Plain bytes in a gzip archive (old MBTiles writers) pass through.
        #expect(try TileCompression.gzip.decompress(raw, maxBytes: 1 << 20, path: "p") == raw)
        #expect(throws: TileArchiveError.self) {
            try TileCompression.gzip.decompress(try TileCompression.gzip.compress(raw), maxBytes: 4, path: "p")
        }
        #expect(throws: TileArchiveError.self) {
            try TileCompression.unsupported(code: 3).decompress(raw, maxBytes: 99, path: "p")
        }
        #expect(throws: TileArchiveError.self) { try TileCompression.unsupported(code: 4).compress(raw) }
    }
}
